import Foundation
import MapbookCore
import SharedTestData
import Testing
import TileFormats
import Geometry

@Suite("mapbook package inspect / tile")
struct PackageCommandTests {
    static let usa = SharedData.url("raster/tpkx/Usa.tpkx").path
    static let states = SharedData.url("raster/tpk/states_filled.tpk").path
    static let vtpk = SharedData.url("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk").path

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func inspectPrintsLevelsAndTotals() async throws {
        let result = try await CLI.runAsync(["package", "inspect", Self.states])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "states_filled — Tile Package (.tpk)")
        #expect(lines.contains { $0.hasPrefix("Tiles  png8, 256×256 px, compactV1 bundles") })
        #expect(lines.contains { $0.hasPrefix("  4      4 ") && $0.hasSuffix(" 16") })
        let total = try #require(lines.last)
        #expect(total.hasPrefix("  total") && total.hasSuffix(" 24"))
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func inspectCheckReportsTheDamagedTiles() async throws {
        let result = try await CLI.runAsync(["package", "inspect", "--check", "--json", Self.usa])
        #expect(result.status == 1, "damaged tiles make the exit status 1")
        let json = try JSONValue(parsing: result.output)
        #expect(json["type"] == .string("tpkx"))
        #expect(json["tileCount"]?.int64 == 144)
        #expect(json["levels"]?.array.map { $0["tiles"]?.int64 ?? -1 } == [1, 1, 4, 9, 30, 99])
        #expect(json["check"]?["checked"]?.int64 == 144)
        #expect(json["check"]?["damaged"]?.array.count == 2)
        #expect(json["extent"]?["xmax"]?.double.map { abs($0 - -66.97) < 0.01 } == true)
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func tileWritesTheStoredBytesByWebZoomColumnRow() async throws {
        let result = try await CLI.runAsync(["package", "tile", Self.states, "4", "4", "5"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output == (try Data(contentsOf: SharedData.url("raster/png-tiles-maine/states_filled.tpk_z4_x4_y5.png"))))

        let missing = try await CLI.runAsync(["package", "tile", Self.states, "9", "4", "5"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("There is no tile 9/4/5"))
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func tileDecodesVectorTiles() async throws {
        let result = try await CLI.runAsync(["package", "tile", Self.vtpk, "0", "0", "0", "--decode", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONValue(parsing: result.output)
        let layers = json["layers"]?.array ?? []
        let names: [String] = layers.compactMap { $0["name"]?.string }
        #expect(names == ["Grenze_Linie", "Hintergrund"])
        let feature = try #require(layers.first?["features"]?[0])
        #expect(feature["type"] == .string("line"))
        #expect(feature["geometry"]?[0]?[0]?.array.count == 2)

        let text = try await CLI.runAsync(["package", "tile", Self.vtpk, "5", "16", "10", "--decode"])
        #expect(text.stdout.hasPrefix("Tile 5/16/10: 5 layers"))

        let raster = try await CLI.runAsync(["package", "tile", Self.usa, "4", "4", "5", "--decode", "--json"])
        #expect(raster.status == 1)
        #expect(try JSONValue(parsing: raster.output)["error"]?["kind"] == .string("notVector"))
    }

    /// Names inside a package are untrusted: escape sequences must not reach the terminal.
    @Test func hostileNamesAreInertAndBadFilesAreOneSentence() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID()).vtpk").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var builder = MVTLayerBuilder(name: "roads\u{1B}[2J")
        builder.add(type: .point, geometry: MVTGeometry(points: [MVTPoint(x: 1, y: 1)], partEnds: [1]),
                    properties: [("name\u{7}", .string("\u{1B}]0;pwned\u{7}"))])
        let writer = VectorTilePackageWriter(name: "x", title: "Evil\u{1B}[2J\u{9B}31m title", snippet: "",
                                             extent: GeoExtent(xmin: -1, ymin: -1, xmax: 1, ymax: 1),
                                             style: .object(["version": .number(8), "layers": .array([])]))
        try writer.write(tiles: [TileKey(z: 0, x: 0, y: 0): MVTTile(layers: [builder.layer])], to: path)
        for arguments in [["package", "inspect", path], ["package", "tile", path, "0", "0", "0", "--decode"],
                          ["package", "tile", path, "0", "0", "0", "--decode", "--json"]] {
            let result = try await CLI.runAsync(arguments)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.output.contains(0x1B) && !result.output.contains(0x07), "\(arguments)")
            #expect(!result.stdout.unicodeScalars.contains { (0x80...0x9F).contains($0.value) }, "\(arguments)")
        }

        let notAPackage = try await CLI.runAsync(["package", "inspect", "/etc/hostname"])
        #expect(notAPackage.status == 1)
        #expect(notAPackage.stderr.hasPrefix("mapbook: The package is damaged or not a tile package"))
        #expect(notAPackage.stderr.split(separator: "\n").count == 1)
    }
}
