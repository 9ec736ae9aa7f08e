import Foundation
import MapbookCore
import SharedTestData
import Testing

/// The commands that take a file, given a mobile map package made from the shared data's parts.
@Suite("mapbook package inspect / snapshot / identify with a .mmpk", .enabled(if: TestMobilePackage.available, "needs ../shared/data"))
struct MobilePackageCommandTests {
    /// A zipped package, and a cache of its own for the geodatabase taken out of it.
    static func make(replacing changes: [String: Data?] = [:]) throws -> (path: String, environment: [String: String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-mmpk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try TestMobilePackage.zip(try TestMobilePackage.files(replacing: changes), to: dir + "/usa.mmpk")
        return (dir + "/usa.mmpk", ["XDG_CACHE_HOME": dir + "/cache"])
    }

    @Test func inspectDescribesItsMapsAndLayers() async throws {
        let (path, environment) = try Self.make()
        let text = try await CLI.runAsync(["package", "inspect", "--check", path], environment: environment)
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("USA mapbook — Mobile map package (.mmpk), ") == true)
        #expect(lines.contains("Map USA (p13/mobile_map.mmap) · 2 bookmarks"))
        #expect(lines.contains { $0.contains("States basemap") && $0.contains("raster tiles") && $0.hasSuffix("ok") })
        #expect(lines.contains { $0.contains("Cities") && $0.contains("point") && $0.contains(" 118 ") && $0.hasSuffix("ok") })
        #expect(lines.contains { $0.contains("Weather") && $0.contains("not drawn: Weather is an online layer (WMS)") })
        let json = try JSONValue(parsing: Data(try await CLI.runAsync(["package", "inspect", "--json", path], environment: environment).stdout.utf8))
        #expect(json["type"] == .string("mobile map package") && json["form"] == .string("zip"))
        let layers = json["maps"]?[0]?["layers"]?.array ?? []
        #expect(layers.compactMap { $0["features"]?["features"]?.int64 } == [49, 228, 118])
        #expect(layers.first?["zooms"] == .array([.number(0), .number(4)]))
    }

    /// A byte changed inside the zip: `--check` finds it by the zip's checksums and exits 1.
    @Test func checkFindsADamagedPackage() async throws {
        let (path, environment) = try Self.make()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let at = try #require(bytes.range(of: Data("SQLite format 3".utf8)))
        bytes[at.lowerBound + 400_000] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let result = try await CLI.runAsync(["package", "inspect", "--check", path], environment: environment)
        #expect(result.status == 1)
        #expect(result.stderr == "mapbook: usa.mmpk is damaged: p13/usa.geodatabase fails its CRC check.\n")
    }

    @Test func snapshotAndIdentifyReadThePackageAlone() async throws {
        let (path, environment) = try Self.make()
        let snapshot = try await CLI.runAsync(["snapshot", "--file", path, "--map", "usa", "--center=-71.5,43", "--zoom", "6.2", "--size", "80x24"],
                                              environment: environment)
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        #expect(snapshot.stderr == "mapbook: Weather is an online layer (WMS); only what the package holds is drawn.\n")
        #expect(snapshot.stdout.contains("●") && snapshot.stdout.split(separator: "\n").count == 24)
        let identify = try await CLI.runAsync(["identify", "--file", path, "--map", "1", "--at", "-69.2,45.3", "--zoom", "6", "--json"],
                                              environment: environment)
        #expect(identify.status == 0, "\(identify.stderr)")
        let first = try #require(try JSONValue(parsing: Data(identify.stdout.utf8))["features"]?.array.first)
        #expect(first["layer"] == .string("States") && first["title"] == .string("Maine"))
    }

    /// A layer the map hides (`visibility: false`) is neither drawn by `snapshot` nor identified by
    /// `identify`, as the browser's first view hides it: one rule for all three.
    @Test func whatTheMapHidesIsNeitherDrawnNorIdentified() async throws {
        let hidden = Data(TestMobilePackage.map.replacingOccurrences(
            of: #""title": "Cities", "layerType": "ArcGISFeatureLayer", "path": "file:./usa.geodatabase?itemId=0","#,
            with: #""title": "Cities", "layerType": "ArcGISFeatureLayer", "path": "file:./usa.geodatabase?itemId=0", "visibility": false,"#).utf8)
        #expect(hidden != Data(TestMobilePackage.map.utf8), "the map was changed")
        let boston = ["--at", "-71.0891,42.3216", "--zoom", "9", "--json"]
        for (files, expected) in [([:], ["City: Boston", "Massachusetts"]), (["p13/mobile_map.mmap": hidden], ["Massachusetts"])] as [([String: Data?], [String])] {
            let (path, environment) = try Self.make(replacing: files)
            let identify = try await CLI.runAsync(["identify", "--file", path] + boston, environment: environment)
            #expect(identify.status == 0, "\(identify.stderr)")
            let titles = try JSONValue(parsing: Data(identify.stdout.utf8))["features"]?.array.compactMap { $0["title"]?.string } ?? []
            #expect(titles == expected)
            let snapshot = try await CLI.runAsync(["snapshot", "--file", path, "--center=-71.5,43", "--zoom", "6.2", "--size", "80x24"], environment: environment)
            #expect(snapshot.stdout.contains("●") == (expected.count == 2), "the cities' markers only when shown")
        }
    }

    @Test func aMapThatIsNotThereIsNamedWithTheOnesThatAre() async throws {
        let (path, environment) = try Self.make()
        let result = try await CLI.runAsync(["snapshot", "--file", path, "--map", "Europe"], environment: environment)
        #expect(result.status == 1)
        #expect(result.stderr == "mapbook: USA mapbook has no map Europe; its maps are USA.\n")
        let plain = try await CLI.runAsync(["snapshot", "--file", usaGeodatabasePath, "--map", "x"], environment: environment)
        #expect(plain.stderr == "mapbook: usa.geodatabase is not a mobile map package, so it has no maps to choose from.\n")
    }

    /// `import` reads each package whole, copies it into the library's packages/ folder (replacing
    /// one of the same name), refuses what is not a package; `packages` lists them offline, by title;
    /// `packages remove` wants a file name when two share a title.
    @Test func importListAndRemovePackagesOnThisDevice() async throws {
        let (zipped, environment) = try Self.make()
        let dir = URL(fileURLWithPath: zipped).deletingLastPathComponent().path
        try TestMobilePackage.unpack(try TestMobilePackage.files(), into: dir + "/usa-unpacked")
        let library = dir + "/library"
        let data = ["--data-dir", library]
        var result = try await CLI.runAsync(["import", zipped, dir + "/usa-unpacked", usaGeodatabasePath] + data, environment: environment)
        #expect(result.status == 1, "one of three is not a package")
        #expect(result.stdout == "Imported USA mapbook (usa.mmpk, 1 map, 1.6 MiB).\nImported USA mapbook (usa-unpacked, 1 map, 1.6 MiB).\n")
        #expect(result.stderr == "mapbook: usa.geodatabase is not a mobile map package (a .mmpk, or a folder holding pNN/*.mmap).\n")
        result = try await CLI.runAsync(["import", zipped] + data, environment: environment)
        #expect(result.status == 0 && result.stdout.hasPrefix("Replaced USA mapbook (usa.mmpk"))
        // An unpacked package replaced: the old folder is moved aside and gone only once the new one is in place.
        result = try await CLI.runAsync(["import", dir + "/usa-unpacked"] + data, environment: environment)
        #expect(result.status == 0 && result.stdout.hasPrefix("Replaced USA mapbook (usa-unpacked"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: library + "/packages").sorted() == ["usa-unpacked", "usa.mmpk"])
        // What an interrupted import leaves is hidden and not listed.
        try Data("partial".utf8).write(to: URL(fileURLWithPath: library + "/packages/.importing-1-usa.mmpk"))

        let listed = try JSONValue(parsing: Data(try await CLI.runAsync(["packages", "--json"] + data, environment: environment).stdout.utf8))["packages"] ?? .null
        #expect(listed.array.map { $0["file"]?.string ?? "" } == ["usa-unpacked", "usa.mmpk"], "by title, then file name")
        #expect(listed.array.allSatisfy { $0["title"] == .string("USA mapbook") && $0["maps"] == .array([.string("USA")]) && $0["problem"] == .null })
        #expect(try await CLI.runAsync(["package", "inspect", library + "/packages/usa.mmpk"], environment: environment).status == 0)

        result = try await CLI.runAsync(["packages", "remove", "usa mapbook"] + data, environment: environment)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("mapbook: Several packages on this device are called usa mapbook ("))
        result = try await CLI.runAsync(["packages", "remove", "usa.mmpk"] + data, environment: environment)
        #expect(result.status == 0 && result.stdout == "Removed USA mapbook (1.6 MiB freed).\n")
        let text = try await CLI.runAsync(["packages"] + data, environment: environment).stdout
        #expect(text.split(separator: "\n").count == 2 && text.contains("usa-unpacked") && !text.contains("usa.mmpk"))
    }
}
