import Foundation
import MapbookCore
import Testing

@Suite struct FormatTests {
    @Test(arguments: [
        (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (44_150_784, "42.1 MiB"),
        (1_048_575, "1.0 MiB"), (5 * 1_073_741_824, "5.0 GiB"), (-5, "0 B"),
    ] as [(Int64, String)])
    func bytes(count: Int64, text: String) {
        #expect(Format.bytes(count) == text)
    }

    @Test func datesAreUTC() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(Format.date(date) == "2023-11-14")
        #expect(Format.timestamp(date) == "2023-11-14T22:13:20Z")
    }
}
