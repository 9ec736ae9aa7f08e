import Foundation
import SharedTestData
import Testing
@testable import TileFormats

/// The mapbox mvt-fixtures: every valid tile decodes to what its tile.json says; every invalid one is
/// rejected (fatal: the tile fails, or for bad geometry every feature carries a geometry error) or
/// decoded with the bad part left out (recoverable), as its info.json says.
@Suite(.enabled(if: SharedData.available, SharedData.skipMessage))
struct MVTFixtureTests {
    /// One fixture folder, with what its info.json says about validity.
    struct Fixture: Sendable, CustomTestStringConvertible {
        var name: String
        var isValid: Bool
        var error: String?
        var testDescription: String { name }

        var folder: URL { SharedData.url("vector/mvt-fixtures/fixtures/\(name)") }
        func tile() throws -> Data { try Data(contentsOf: folder.appendingPathComponent("tile.mvt")) }
        func expected() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("tile.json"))) as? [String: Any] ?? [:]
        }
    }

    static let fixtures: [Fixture] = {
        guard SharedData.available else { return [] }
        let folder = SharedData.url("vector/mvt-fixtures/fixtures")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()) ?? []
        return names.compactMap { name in
            let infoURL = folder.appendingPathComponent(name).appendingPathComponent("info.json")
            guard let info = (try? JSONSerialization.jsonObject(with: Data(contentsOf: infoURL))) as? [String: Any] else { return nil }
            let validity = info["validity"] as? [String: Any] ?? [:]
            return Fixture(name: name, isValid: validity["v2"] as? Bool == true, error: validity["error"] as? String)
        }
    }()

    @Test func allFixturesArePresent() {
        #expect(Self.fixtures.count == 74)
    }

    @Test(arguments: fixtures.filter(\.isValid))
    func validFixtureMatchesItsJSON(_ fixture: Fixture) throws {
        let tile = try MVTTile(decoding: try fixture.tile())
        let layers = try fixture.expected()["layers"] as? [[String: Any]] ?? []
        try #require(tile.layers.count == layers.count)
        for (layer, json) in zip(tile.layers, layers) {
            #expect(layer.name == json["name"] as? String)
            #expect(layer.version == json["version"] as? Int)
            #expect(layer.extent == (json["extent"] as? Int ?? 4096))
            #expect(layer.keys == (json["keys"] as? [String] ?? []))
            let values = (json["values"] as? [[String: Any]] ?? []).map(Self.value)
            #expect(layer.values == values)
            let features = json["features"] as? [[String: Any]] ?? []
            try #require(layer.features.count == features.count)
            for (feature, f) in zip(layer.features, features) {
                #expect(feature.id == (f["id"] as? NSNumber)?.uint64Value)
                #expect(feature.tags == (f["tags"] as? [NSNumber] ?? []).map(\.uint32Value))
                #expect(feature.type.rawValue == (f["type"] as? NSNumber)?.uint32Value ?? 0)
                #expect(feature.commands == (f["geometry"] as? [NSNumber] ?? []).map(\.uint32Value))
            }
        }
    }

    @Test(arguments: fixtures.filter { !$0.isValid && $0.error != "recoverable" })
    func fatalFixtureIsRejected(_ fixture: Fixture) throws {
        guard let tile = try? MVTTile(decoding: try fixture.tile()) else { return }
        let features = tile.layers.flatMap(\.features)
        #expect(!features.isEmpty && features.allSatisfy { $0.geometryError != nil },
                "a fatal fixture decoded without error")
    }

    @Test(arguments: fixtures.filter { !$0.isValid && $0.error == "recoverable" })
    func recoverableFixtureDecodes(_ fixture: Fixture) throws {
        let tile = try MVTTile(decoding: try fixture.tile())
        #expect(!tile.layers.isEmpty)
    }

    static func value(_ json: [String: Any]) -> MVTValue? {
        if let s = json["string_value"] as? String { return .string(s) }
        if let n = json["string_value"] as? NSNumber { return .string(n.stringValue) }  // fixture 076 writes "613" as 613
        if let n = json["float_value"] as? NSNumber { return .float(n.floatValue) }
        if let n = json["double_value"] as? NSNumber { return .double(n.doubleValue) }
        if let n = json["int_value"] as? NSNumber { return .int(n.int64Value) }
        if let n = json["uint_value"] as? NSNumber { return .uint(n.uint64Value) }
        if let n = json["sint_value"] as? NSNumber { return .sint(n.int64Value) }
        if let b = json["bool_value"] as? Bool { return .bool(b) }
        return nil
    }
}
