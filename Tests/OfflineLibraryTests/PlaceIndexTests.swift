import Foundation
import MapbookCore
import PortalFixtures
import SharedTestData
import Testing
import TileFormats
@testable import OfflineLibrary
import Geometry
import Places

/// Searching without the network: the names inside vector packages, found by prefix with case and
/// accents ignored, ranked by match, nearness and prominence; kept beside the package.
@Suite struct PlaceIndexTests {
    static let basemapDE = SharedData.url("vector/vtpk/basemapde_sample_L00-L07_nofonts.vtpk").path

    @Test func prefixesWordsAccentsAndRanking() {
        let index = PlaceIndex(places: [
            PlaceName(name: "Lüneburg", point: GeoPoint(longitude: 10.41, latitude: 53.25), rank: 6),
            PlaceName(name: "Bar Harbor", point: GeoPoint(longitude: -68.2, latitude: 44.39), rank: 9),
            PlaceName(name: "Bar Mills", point: GeoPoint(longitude: -70.55, latitude: 43.6), rank: 11),
            PlaceName(name: "Bangor", point: GeoPoint(longitude: -68.78, latitude: 44.8), rank: 7),
            PlaceName(name: "Northeast Harbor", point: GeoPoint(longitude: -68.29, latitude: 44.29), rank: 11),
        ])
        #expect(index.search("luneburg").map(\.name) == ["Lüneburg"], "accents folded")
        #expect(index.search("BAR").map(\.name) == ["Bar Harbor", "Bar Mills"], "the more prominent first")
        #expect(index.search("bar", near: GeoPoint(longitude: -70.5, latitude: 43.6)).map(\.name) == ["Bar Mills", "Bar Harbor"], "the nearer first")
        #expect(index.search("harbor").map(\.name) == ["Bar Harbor", "Northeast Harbor"], "a word's start")
        #expect(index.search("bar harbor").first?.name == "Bar Harbor")
        #expect(index.search("lunbeurg").map(\.name) == ["Lüneburg"], "a typo forgiven, when no prefix matches")
        #expect(index.search("lnbrg").isEmpty, "letters in order alone are not a match")
        #expect(index.search("").isEmpty && index.search("zzz").isEmpty && index.search("\u{202E}*\"").isEmpty)
    }

    /// A name that exists only inside the package is found where it is.
    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func theNamesInsideAVectorPackageAreFoundWhereTheyAre() throws {
        let names = try PlaceIndex.names(in: TilePackage(path: Self.basemapDE))
        #expect(names.count > 100)
        let leipzig = try #require(PlaceIndex(places: names).search("leipz").first)
        #expect(leipzig.name == "Leipzig")
        #expect(abs(leipzig.point.longitude - 12.37) < 0.3 && abs(leipzig.point.latitude - 51.34) < 0.3, "\(leipzig.point)")
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func namesAreKeptBesideThePackageAndReadAgainWhenItChanges() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-names-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("p.vtpk").path
        try FileManager.default.copyItem(atPath: Self.basemapDE, toPath: copy)
        let first = OfflineLibrary.placeNames(ofPackageAt: copy)
        #expect(FileManager.default.fileExists(atPath: copy + ".names"))
        #expect(OfflineLibrary.placeNames(ofPackageAt: copy) == first, "read back from the kept file")
        // A kept file of another package version is not believed.
        try Data("mapbook-names 1 1 1\nNowhere\t0\t0\t0\n".utf8).write(to: URL(fileURLWithPath: copy + ".names"))
        #expect(OfflineLibrary.placeNames(ofPackageAt: copy) == first)
    }
}
