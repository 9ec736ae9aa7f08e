import Foundation
import MapbookCore
import Testing
@testable import OfflineLibrary
import Geometry
import UserFiles

/// Pins in the data directory: kept atomically, a damaged file kept aside (never emptied), links
/// http or https only, GeoJSON out and in with the features left out named.
@Suite struct PinStoreTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-pins-\(UUID())").path

    init() throws { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) }

    @Test func addListRemoveAndExport() throws {
        let store = PinStore(root: root)
        #expect(try store.load().isEmpty)
        // A time with a fraction of a second, which the file must not blur.
        let pin = try store.add(title: "Trailhead \u{1B}[31m", note: "Parking", link: "https://example.org/t",
                                at: GeoPoint(longitude: -68.27, latitude: 44.35), now: Date(timeIntervalSince1970: 1_763_700_000.123456789))
        #expect(pin.title == "Trailhead" && pin.link == "https://example.org/t")
        #expect(try store.load() == [pin], "read back as written")
        let geo = PinStore.geoJSON([pin])
        #expect(geo["type"]?.string == "FeatureCollection")
        #expect(geo["features"]?.array.first?["geometry"]?["coordinates"]?.array.compactMap(\.double) == [-68.27, 44.35])
        #expect(try store.remove(String(pin.id.prefix(5))))
        #expect(try store.load().isEmpty)
        // Times with fractions of a second read back as they were kept (whole seconds).
        let times = (0..<40).map { Date(timeIntervalSince1970: 1_763_700_000 + Double($0) * 0.123456789) }
        let timed = try times.map { try store.add(title: "t", note: nil, link: nil, at: GeoPoint(longitude: 0, latitude: 0), now: $0) }
        #expect(try store.load() == timed)
        #expect(try !store.remove("nothing"))
    }

    @Test func badInputIsRefusedWithASentence() throws {
        let store = PinStore(root: root)
        let point = GeoPoint(longitude: 0, latitude: 0)
        for link in ["javascript:alert(1)", "file:///etc/passwd", "http://\u{7}x"] {
            #expect(throws: PinError("A pin's link must be an http or https address.")) { try store.add(title: "t", note: nil, link: link, at: point) }
        }
        #expect(throws: PinError("A pin needs a title.")) { try store.add(title: "  ", note: nil, link: nil, at: point) }
        #expect(throws: PinError.self) { try store.add(title: "t", note: nil, link: nil, at: GeoPoint(longitude: 200, latitude: 0)) }
        #expect(try store.load().isEmpty, "nothing half-kept")
    }

    /// Every damaged copy is kept (a second damage never destroys the first's backup), the sentence
    /// says where, and speaks of pins, not areas.
    @Test func everyDamagedFileIsKeptAsideNeverEmptied() throws {
        let store = PinStore(root: root)
        let damaged = [Data("[{\"id\":\"a\",\"title\":".utf8), Data("not json at all".utf8)]
        for bytes in damaged {
            try bytes.write(to: URL(fileURLWithPath: store.path))
            let error = #expect(throws: PinError.self) { _ = try store.load() }
            let sentence = error?.userSentence ?? ""
            #expect(sentence.contains("it was kept as \(store.path).bad-") && !sentence.contains("area"), "\(sentence)")
            #expect(try store.load().isEmpty, "a new file is started")
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix("pins.json.bad-") }.sorted()
        #expect(kept.count == 2)
        #expect(Set(kept.compactMap { FileManager.default.contents(atPath: root + "/" + $0) }) == Set(damaged))
    }

    /// A damaged file on a disk where it cannot be moved aside: nothing claims it was kept, and
    /// no pin is written over it.
    @Test(.enabled(if: getuid() != 0, "root can write into a read-only folder"))
    func aDamagedFileThatCannotBeMovedIsLeftAndSaidSo() throws {
        let store = PinStore(root: root)
        try Data("broken".utf8).write(to: URL(fileURLWithPath: store.path))
        chmod(root, 0o500)
        defer { chmod(root, 0o700) }
        let error = #expect(throws: PinError.self) { try store.add(title: "x", note: nil, link: nil, at: GeoPoint(longitude: 1, latitude: 2)) }
        #expect(error?.userSentence.contains("could not be moved aside") == true && error?.userSentence.contains("kept as") == false)
        #expect(FileManager.default.contents(atPath: store.path) == Data("broken".utf8))
    }

    /// Two writers adding pins at once (each with its own open of the lock, as two processes have)
    /// keep every pin.
    @Test func concurrentWritersLoseNoPin() async throws {
        let root = self.root
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    let store = PinStore(root: root)
                    for index in 0..<40 {
                        _ = try? store.add(title: "w\(writer)-\(index)", note: nil, link: nil, at: GeoPoint(longitude: Double(index), latitude: 1))
                    }
                }
            }
        }
        #expect(try PinStore(root: root).load().count == 80)
    }

    @Test func importTakesThePointsAndNamesWhatItLeftOut() throws {
        let store = PinStore(root: root)
        let file = Data(#"""
            {"type":"FeatureCollection","features":[
              {"type":"Feature","geometry":{"type":"Point","coordinates":[-68.2,44.39]},"properties":{"name":"Bar Harbor"}},
              {"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{"title":"A line"}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"title":"Bad link","link":"javascript:x"}},
              {"type":"Feature","geometry":null,"properties":{}}]}
            """#.utf8)
        let (added, problems) = try store.importGeoJSON(file)
        #expect(added == 1)
        #expect(try store.load().map(\.title) == ["Bar Harbor"])
        #expect(problems == ["Feature 2 is not a point.", "Feature 3: A pin's link must be an http or https address.", "Feature 4 is not a point."])
        #expect(throws: PinError("The file is not JSON.")) { try store.importGeoJSON(Data("nope".utf8)) }
    }

    @Test func anEditKeepsThePlaceAndTimeAndIsCheckedLikeANewPin() throws {
        let store = PinStore(root: root)
        let pin = try store.add(title: "Cove", note: nil, link: nil, at: GeoPoint(longitude: -68.2, latitude: 44.3), now: Date(timeIntervalSince1970: 1_000))
        let edited = try store.update(pin.id, title: "Quiet cove", note: "low tide", link: "https://example.com/cove")
        #expect(edited.title == "Quiet cove" && edited.note == "low tide" && edited.link == "https://example.com/cove")
        #expect(edited.longitude == -68.2 && edited.created == pin.created && edited.id == pin.id)
        #expect(try store.load() == [edited])
        #expect(throws: PinError("A pin's link must be an http or https address.")) {
            try store.update(pin.id, title: "Cove", note: nil, link: "file:///etc/passwd")
        }
        #expect(throws: PinError("That pin is no longer there.")) { try store.update("nope", title: "x", note: nil, link: nil) }
        #expect(try store.load() == [edited])
    }
}
