import Foundation
import PortalFixtures
import SamplePortal
import SharedTestData
import Testing

/// `mapbook identify`: a package's label feature at a city; a downloaded area's Places popup with
/// the portal gone; the web map's layers online; bad input in one sentence.
@Suite("mapbook identify")
struct IdentifyCommandTests {
    static let vtpk = SharedData.url("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk").path

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func aPackagesCityLabelIsFoundAtTheCity() async throws {
        let result = try await CLI.runAsync(["identify", "--file", Self.vtpk, "--at", "13.405,52.52", "--zoom", "5", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let features = try #require(try json(result.stdout)["features"] as? [[String: Any]])
        let first = try #require(features.first)
        #expect(first["title"] as? String == "Berlin" && first["layer"] as? String == "Name_Punkt · basemap")
        let fields = try #require(first["fields"] as? [[String: String]])
        #expect(fields.contains { $0["label"] == "art" && $0["value"] == "Hauptstadt" })
        let text = try await CLI.runAsync(["identify", "--file", Self.vtpk, "--at", "13.405,52.52", "--zoom", "5"])
        #expect(text.stdout.hasPrefix("Berlin  (Name_Punkt · basemap)\n"))
        // Far out at sea, nothing.
        let sea = try await CLI.runAsync(["identify", "--file", Self.vtpk, "--at=-30,40", "--zoom", "5"])
        #expect(sea.status == 0 && sea.stdout.hasPrefix("Nothing at -30.00000,40.00000"))
    }

    /// A State Plane file: an address point identified where it lies, and the point given back in
    /// the file's own system (US feet) as `cs2cs` has it; codes PROJ cannot use refused in a sentence.
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func aStatePlanePointIsFoundAndGivenInItsSystem() async throws {
        let file = SharedData.url("real/ios_loudoun_anno.geodatabase").path
        let result = try await CLI.runAsync(["identify", "--file", file, "--at=-77.4164343117,39.0207751807", "--zoom", "19", "--json", "--crs", "EPSG:2924"])
        #expect(result.status == 0, "\(result.stderr)")
        let body = try json(result.stdout)
        let at = try #require(body["at"] as? [String: Any])
        // cs2cs EPSG:4326 EPSG:2924 of the point: 11790768.57 7056614.63.
        let x = try #require(at["x"] as? Double), y = try #require(at["y"] as? Double)
        #expect(abs(x - 11_790_768.57) < 0.05 && abs(y - 7_056_614.63) < 0.05 && at["crs"] as? String == "EPSG:2924", "\(at)")
        let features = try #require(body["features"] as? [[String: Any]])
        #expect(features.contains { ($0["layer"] as? String)?.contains("Address_Points") == true }, "\(features.map { $0["layer"] ?? "" })")
        for bad in ["EPSG:99999", "nonsense"] {
            let refused = try await CLI.runAsync(["identify", "--file", file, "--at=-77.4164,39.0207", "--json", "--crs", bad])
            #expect(refused.status == 64 && refused.stdout.contains("--crs names a coordinate system mapbook cannot use"), "\(refused.stdout)")
        }
        let outside = try await CLI.runAsync(["identify", "--file", file, "--at", "100,39", "--json", "--crs", "EPSG:2924"])
        #expect(outside.status == 64 && outside.stdout.contains("--at lies outside what EPSG:2924 can hold"), "\(outside.stdout)")
    }

    @Test func aDownloadedAreaShowsThePlacesPopupWithThePortalGone() async throws {
        let server = try SampleFixture.start()
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-cli-identify-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let common = ["--portal", server.baseURL.absoluteString, "--data-dir", dataDir]
        let download = try await CLI.runAsync(["download", "Greater Portland"] + common)
        #expect(download.status == 0, "\(download.stderr)")
        // Online, from the web map's services.
        let online = try await CLI.runAsync(["identify", "--at=-70.2589,43.6574", "--zoom", "11", "--json"] + common)
        let onlineFeatures = try #require(try json(online.stdout)["features"] as? [[String: Any]])
        #expect(onlineFeatures.first?["title"] as? String == "Portland" && onlineFeatures.first?["layer"] as? String == "Places")
        server.stop()
        let result = try await CLI.runAsync(["identify", "--area", "Greater Portland", "--at=-70.2589,43.6574", "--zoom", "11"] + common)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Portland  (Places)")
        #expect(lines.contains("  Population  66,881") && lines.contains("  County      Cumberland"))
        #expect(lines.contains("  Portland is a City in Cumberland County, Maine."))
        // Then the county under it, from its copy too: no popup, every attribute.
        #expect(result.stdout.contains("Cumberland  (Counties)"))
    }

    @Test func badInputIsOneSentence() async throws {
        let result = try await CLI.runAsync(["identify", "--file", "/nonexistent.vtpk", "--at", "1,2"])
        #expect(result.status != 0 && result.stderr.contains("does not exist"))
        let bad = try await CLI.runAsync(["identify", "--file", "/nonexistent.vtpk", "--at", "east"])
        #expect(bad.status != 0 && bad.stderr.contains("--at must be longitude,latitude"))
    }
}
