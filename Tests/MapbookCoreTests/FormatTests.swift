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

    @Test(arguments: [
        (0.0, "0 min"), (0.2, "1 min"), (44.6, "45 min"), (121, "2 h 01 min"), (24 * 60 - 1, "23 h 59 min"),
        (2 * 24 * 60 - 10, "2 d 0 h"), (2796.5, "1 d 23 h"),
    ] as [(Double, String)])
    func durations(minutes: Double, text: String) {
        #expect(Format.duration(minutes: minutes) == text)
    }
}
