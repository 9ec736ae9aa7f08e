import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

@Suite("mapbook areas / info against the sample portal")
struct CLITests {
    let server: SamplePortal
    var portal: String { server.baseURL.absoluteString }

    init() throws {
        var faults = SampleFaults()
        try faults.apply("processing=Baxter State Park,failed=Caribou")
        server = try SampleFixture.start(faults: faults)
    }

    func packageSize(_ area: SampleArea) -> Int { SampleFixture.content.packages[area.packageID]!.data.count }

    @Test func areasListsEveryAreaAligned() async throws {
        let result = try await CLI.runAsync(["areas", "--portal", portal, "--webmap", SampleFixture.webMapID])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "Explore Maine (\(SampleFixture.webMapID)) on 127.0.0.1 — 6 map areas")
        let header = try #require(lines.first { $0.contains("TITLE") })
        #expect(header.hasPrefix("  TITLE"))
        let portland = try #require(lines.first { $0.contains("Greater Portland") })
        #expect(portland.contains("ready"))
        #expect(portland.contains(Format.bytes(Int64(packageSize(SampleFixture.portland)))))
        #expect(portland.hasSuffix(SampleFixture.portlandID))
        // The browser's words: a processing area is "packaging" in both.
        #expect(lines.first { $0.contains("Baxter State Park") }?.contains("packaging") == true)
        #expect(lines.first { $0.contains("Caribou") }?.contains("packaging failed") == true)
        // Columns line up: every id starts in the same column.
        let idColumns = Set(lines.dropFirst(2).compactMap { line in
            line.range(of: #"[0-9a-f]{32}$"#, options: .regularExpression).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        })
        #expect(idColumns.count == 1)
    }

    @Test func areasJSONIsStable() async throws {
        let result = try await CLI.runAsync(["areas", "--portal", portal, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["portal"] as? String == portal)
        #expect((json["webMap"] as? [String: Any])?["title"] as? String == "Explore Maine")
        let areas = try #require(json["mapAreas"] as? [[String: Any]])
        #expect(areas.count == 6)
        let bangor = try #require(areas.first { $0["id"] as? String == SampleFixture.bangorID })
        #expect(Set(bangor.keys) == ["id", "title", "snippet", "status", "downloadable", "unavailable", "size", "packageCount",
                                     "created", "modified", "extent", "packages"])
        #expect(bangor["unavailable"] is NSNull)
        #expect(bangor["size"] as? Int == packageSize(SampleFixture.bangor))
        #expect(bangor["packageCount"] as? Int == 1)
        #expect(bangor["downloadable"] as? Bool == true)
        #expect(bangor["modified"] as? String == "2023-11-14T22:13:20Z")
        let packages = try #require(bangor["packages"] as? [[String: Any]])
        #expect(packages.map { $0["type"] as? String } == ["Vector Tile Package"])
        let caribou = try #require(areas.first { $0["title"] as? String == "Caribou" })
        #expect(caribou["status"] as? String == "failed")
        #expect(caribou["downloadable"] as? Bool == false)
    }

    @Test func infoShowsOneItemWithPlainTextDescription() async throws {
        let result = try await CLI.runAsync(["info", SampleFixture.webMapID, "--portal", portal])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Title     Explore Maine"))
        #expect(result.stdout.contains("Type      Web Map"))
        #expect(result.stdout.contains("Created   2018-03-20"))
        #expect(result.stdout.contains("Download an area and take it offline."))
        #expect(!result.stdout.contains("<p>") && !result.stdout.contains("<b>"))
    }

    @Test func infoJSON() async throws {
        let result = try await CLI.runAsync(["info", SampleFixture.portlandID, "--portal", portal, "--json"])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["type"] as? String == "Map Area")
        #expect(json["size"] is NSNull, "size -1 is unknown")
        #expect((json["extent"] as? [String: Double])?["xmin"] == -70.45)
    }

    @Test func unknownItemIsOneSentenceAndExit1() async throws {
        let result = try await CLI.runAsync(["info", "0000000000000000000000000000dead", "--portal", portal])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "mapbook: The item 0000000000000000000000000000dead does not exist on 127.0.0.1, or it is not shared with you.\n")
    }

    @Test func errorsAreJSONWithJSONFlag() async throws {
        let result = try await CLI.runAsync(["info", SampleCatalog.protectedID, "--portal", portal, "--json"])
        #expect(result.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: [String: String]])
        #expect(json["error"]?["kind"] == "tokenRequired")
        #expect(json["error"]?["message"]?.contains("MAPBOOK_TOKEN") == true)
    }

    @Test func tokenComesFromTheEnvironmentAndIsNeverPrinted() async throws {
        let ok = try await CLI.runAsync(["info", SampleCatalog.protectedID, "--portal", portal],
                             environment: ["MAPBOOK_TOKEN": SampleCatalog.validToken])
        #expect(ok.status == 0)
        let bad = try await CLI.runAsync(["info", SampleCatalog.protectedID, "--portal", portal, "--json"],
                              environment: ["MAPBOOK_TOKEN": "leaky-secret"])
        #expect(bad.status == 1)
        #expect(!(bad.stdout + bad.stderr).contains("leaky-secret"))
        #expect(bad.stdout.contains("invalidToken"))
    }

    @Test func unreachablePortalNamesTheHostAndExits3() async throws {
        let result = try await CLI.runAsync(["areas", "--portal", "https://portal.mapbook.invalid"])
        #expect(result.status == 3)
        #expect(result.stderr == "mapbook: Cannot reach portal.mapbook.invalid: the name does not resolve. Check the internet connection.\n")
        let json = try await CLI.runAsync(["areas", "--portal", "https://portal.mapbook.invalid", "--json"])
        #expect(json.status == 3)
        #expect(json.stdout == #"{"error":{"kind":"unreachable","message":"Cannot reach portal.mapbook.invalid: the name does not resolve. Check the internet connection."}}"# + "\n")
    }

    @Test func aMapAreaIsNotAWebMap() async throws {
        let result = try await CLI.runAsync(["areas", "--portal", portal, "--webmap", SampleFixture.portlandID])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is a Map Area, not a Web Map"))
    }

    @Test func badArgumentsAreUsageErrors() async throws {
        let result = try await CLI.runAsync(["areas", "--webmap", "not-an-id"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("32 hexadecimal characters"))
    }

    /// The browser's options before a subcommand are the subcommand's: `mapbook --portal URL areas`.
    @Test func optionsBeforeTheSubcommandAreTaken() async throws {
        let before = try await CLI.runAsync(["--portal", portal, "areas", "--json"])
        let after = try await CLI.runAsync(["areas", "--portal", portal, "--json"])
        #expect(before.status == 0 && before.stdout == after.stdout, "\(before.stderr)")
        let equals = try await CLI.runAsync(["--portal=\(portal)", "--json", "areas"])
        #expect(equals.status == 0 && equals.stdout == after.stdout, "\(equals.stderr)")
    }

    /// The full screen asked for without a terminal is a usage error, 64 as docs/cli.md says.
    @Test func theBrowserWithoutATerminalIsAUsageError() async throws {
        let result = try await CLI.runAsync(["--portal", portal])
        #expect(result.status == 64)
        #expect(result.stderr.contains("The full-screen browser needs a terminal"))
    }
}
