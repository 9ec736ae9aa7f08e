import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// `mapbook area new` end to end against the sample portal: the estimate alone, then the jobs and
/// the download as JSON lines, the area listed as yours, and the estimate within 10 % of the bytes.
@Suite("mapbook area new")
struct AreaCommandTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-area-\(UUID())").path

    func run(_ arguments: [String]) async throws -> CLIResult {
        try await CLI.runAsync(arguments + ["--data-dir", home + "/data"],
                               environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state", "XDG_CACHE_HOME": home + "/cache"])
    }

    static func lines(_ text: String) throws -> [JSONValue] {
        try text.split(separator: "\n").map { try JSONValue(parsing: Data($0.utf8)) }
    }

    @Test func camdenHarborAtStreetLevelAsJSONWithinTenPercentOfTheEstimate() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let area = ["area", "new", "--portal", portal.baseURL.absoluteString, "--extent", "-69.075,44.195,-69.035,44.225",
                    "--scale", "street", "--name", "Camden harbor", "--json"]
        let estimate = try await run(area + ["--estimate-only"])
        #expect(estimate.status == 0, "\(estimate.stderr)")
        let estimated = try Self.lines(estimate.stdout)
        #expect(estimated.map { $0["event"]?.string } == ["estimate", "estimate", "estimateTotal"])
        #expect(!portal.requests.contains { $0.path.hasSuffix("/exportTiles") }, "--estimate-only starts no job")
        let total = try #require(estimated.last?["bytes"]?.double)

        let made = try await run(area)
        #expect(made.status == 0, "\(made.stderr)")
        let events = try Self.lines(made.stdout)
        #expect(events.contains { $0["event"]?.string == "job" && $0["status"]?.string == "Preparing on the server 40 %" })
        let finished = try #require(events.last { $0["event"]?.string == "downloaded" }, "\(made.stdout)")
        let downloaded = try #require(finished["size"]?.double)
        #expect(abs(total - downloaded) / downloaded < 0.10, "estimated \(total), downloaded \(downloaded)")

        let library = try await run(["library", "--portal", portal.baseURL.absoluteString, "--json"])
        let camden = try JSONValue(parsing: Data(library.stdout.utf8))["mapAreas"]?.array.first { $0["title"]?.string == "Camden harbor" }
        #expect(camden?["origin"]?.string == "yours" && camden?["state"]?.string == "downloaded")
        #expect(camden?["onDemand"]?["detail"]?.string == "street" && camden?["onDemand"]?["maxLevel"]?.double == 16)

        let again = try await run(area)
        #expect(again.status == 1 && again.stdout.contains("an area of the web map is already called that"), "\(again.stdout)")
    }

    @Test func aFailedJobIsOneSentenceAndABadExtentIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        var faults = SampleFaults()
        try faults.apply("jobs=fail")
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let failed = try await run(["area", "new", "--portal", portal.baseURL.absoluteString, "--extent", "-69.075,44.195,-69.035,44.225",
                                    "--max-level", "12", "--name", "Camden"])
        #expect(failed.status == 1)
        #expect(failed.stderr.hasPrefix("mapbook: Camden cannot be made: ") && failed.stderr.contains(" failed on the server: ")
                && failed.stderr.hasSuffix(" could not be written.\n") && failed.stderr.split(separator: "\n").count == 1, "\(failed.stderr)")
        let library = try await run(["library", "--portal", portal.baseURL.absoluteString])
        #expect(library.stdout.contains("Camden (yours)") && library.stdout.contains("preparing"), "kept to retry: \(library.stdout)")
        let cancelled = try await run(["area", "cancel", "camden", "--portal", portal.baseURL.absoluteString])
        #expect(cancelled.status == 0 && cancelled.stdout.hasPrefix("Camden: its server jobs were cancelled"), "\(cancelled.stderr)")
        let gone = try await run(["area", "cancel", "Camden", "--portal", portal.baseURL.absoluteString])
        #expect(gone.status == 1 && gone.stderr.contains("No map area is called \"Camden\""))
        let backwards = try await run(["area", "new", "--extent", "-69,44.3,-69.1,44.2", "--scale", "street"])
        #expect(backwards.status != 0 && backwards.stderr.contains("--extent is west,south,east,north"))
        let both = try await run(["area", "new", "--extent", "-69.1,44.2,-69,44.3", "--scale", "street", "--max-level", "3"])
        #expect(both.status != 0 && both.stderr.contains("Give --scale NAME or --max-level N"))
    }
}
