import Foundation
import PortalFixtures
import SamplePortal
import Testing

/// `mapbook maps` (your content, a group's, a search's, the recent ones) and `mapbook config`.
@Suite("mapbook maps and config")
struct MapsCommandTests {
    let server: SamplePortal
    let home: String
    var portal: String { server.baseURL.absoluteString }
    var environment: [String: String] { ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state"] }

    init() throws {
        server = try SampleFixture.start()
        home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-maps-\(UUID())").path
    }

    func maps(_ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await CLI.runAsync(["maps", "--portal", portal, "--json"] + arguments, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return try #require(json["maps"] as? [[String: Any]])
    }

    @Test func yourContentAGroupASearchAndTheRecentOnes() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        // Not signed in: the recent ones, none yet; --mine asks for a sign-in.
        #expect(try await maps([]).isEmpty)
        let mine = try await CLI.runAsync(["maps", "--portal", portal, "--mine"], environment: environment)
        #expect(mine.status == 1 && mine.stderr.contains("mapbook auth login"))
        let login = try await CLI.runAsync(["auth", "login", "--portal", portal, "--username", "demo", "--password-stdin"],
                                           environment: environment, input: "mapbook-demo\n")
        #expect(login.status == 0)
        let content = try await maps(["--mine"])
        #expect(content.map { $0["title"] as? String } == ["Explore Maine (staff)", "Explore Maine"])
        #expect(content.map { $0["folder"] as? String } == [nil, "Field work"] && content.allSatisfy { $0["offline"] as? Bool == true })
        let group = try await maps(["--group", "f1e1dc0a2b3c4d5e6f708192a3b4c5d6"])
        #expect(Set(group.compactMap { $0["id"] as? String }) == [SampleCatalog.webMapID, SampleCatalog.protectedID])
        let found = try await maps(["--query", "staff"])
        #expect(found.map { $0["id"] as? String } == [SampleCatalog.protectedID])
        // The gallery's basemaps are web maps too, and a search finds them; areas are not web maps.
        #expect(try await maps(["--query", "Maine"]).allSatisfy { ($0["id"] as? String).map { !$0.hasPrefix("d1a2") } ?? false })
        // A web map with an area downloaded here is recent too, never opened in the browser.
        let data = home + "/data"
        let download = try await CLI.runAsync(["download", "Acadia", "--portal", portal, "--data-dir", data], environment: environment)
        #expect(download.status == 0, "\(download.stderr)")
        let kept = try await maps(["--recent", "--data-dir", data])
        #expect(kept.map { $0["title"] as? String } == ["Explore Maine"] && kept.first?["downloadedAreas"] as? Int == 1)
        // Kept here but never opened: no opened date (its item's modified date is not one).
        #expect(kept.first?["opened"] is NSNull && kept.first?["modified"] is String)
        #expect(try await maps(["--mine", "--data-dir", data]).map { $0["downloadedAreas"] as? Int } == [0, 1])
    }

    @Test func configSetsGetsListsAndRefusesWhatItCannotUse() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        func config(_ arguments: [String]) async throws -> CLIResult { try await CLI.runAsync(["config"] + arguments, environment: environment) }
        #expect(try await config(["set", "portal", portal]).status == 0)
        #expect(try await config(["set", "webmap", SampleCatalog.protectedID]).status == 0)
        #expect(try await config(["get", "portal"]).stdout == portal + "\n")
        let bad = try await config(["set", "webmap", "not-an-id"])
        #expect(bad.status == 1 && bad.stderr.contains("webmap is an item id"))
        let unknown = try await config(["set", "colour", "red"])
        #expect(unknown.status == 1 && unknown.stderr.contains("mapbook has no setting “colour”"))
        let list = try await config(["list"])
        #expect(list.stdout.contains("webmap = \(SampleCatalog.protectedID)\n") && list.stdout.contains("resume-downloads = true\n"))
        // The settings are the defaults of every command: the portal and web map named nowhere else.
        let info = try await CLI.runAsync(["areas", "--json"], environment: environment)
        #expect(info.status == 1 && info.stdout.contains("tokenRequired"), "the private web map, on the configured portal")
        #expect(try await config(["unset", "webmap"]).status == 0)
        #expect(try await config(["get", "webmap"]).stdout.isEmpty)
        // Unset, `list` shows the default in effect, marked so.
        #expect(try await config(["list"]).stdout.contains("webmap = 3bc3179f17da44a0ac0bfdac4ad15664 (Explore Maine)  (default)\n"))
        let file = try String(contentsOfFile: home + "/config/mapbook/config", encoding: .utf8)
        #expect(file == "portal = \(portal)\n")
        // Theme, graphics and keys: named values, refused by name when they cannot be used.
        #expect(try await config(["set", "theme", "light"]).status == 0)
        #expect(try await config(["set", "key.download", "D"]).status == 0)
        let clash = try await config(["set", "key.quit", "D"])
        #expect(clash.status == 1 && clash.stderr.contains("D is already the key for download"))
        let graphics = try await config(["set", "graphics", "png"])
        #expect(graphics.status == 1 && graphics.stderr.contains("graphics is auto, kitty, sixel, iterm, off, braille, blocks, ascii"))
        let listed = try await config(["list"]).stdout
        #expect(listed.contains("theme = light\n") && listed.contains("graphics = auto") && listed.hasSuffix("key.download = D\n"))
    }
}
