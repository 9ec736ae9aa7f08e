import ArcGISModel
import Foundation
import Geometry
import MapRender
import MapSources
import MobilePackages
import SharedTestData
import Testing

/// A mobile map package made from the shared data's parts, zipped and unpacked: its maps, their
/// layers planned by `path`, drawn and identified from the package alone; and packages made wrong.
@Suite(.enabled(if: TestMobilePackage.available, "needs ../shared/data (usa.geodatabase and states_filled.tpk)"))
struct MobileMapPackageTests {
    enum Form: CaseIterable { case zip, folder }

    static func make(_ form: Form, replacing changes: [String: Data?] = [:]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mmpk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let files = try TestMobilePackage.files(replacing: changes)
        switch form {
        case .zip:
            try TestMobilePackage.zip(files, to: dir + "/usa.mmpk")
            return dir + "/usa.mmpk"
        case .folder:
            try TestMobilePackage.unpack(files, into: dir + "/usa")
            return dir + "/usa"
        }
    }

    static func mapJSON(_ edit: (inout String) -> Void) -> Data {
        var text = TestMobilePackage.map
        edit(&text)
        return Data(text.utf8)
    }

    @Test(arguments: Form.allCases) func itsDescriptionAndMapsAreRead(form: Form) throws {
        let path = try Self.make(form)
        #expect(MobileMapPackage.recognizes(path: path))
        let package = try MobileMapPackage(path: path)
        #expect(package.info.title == "USA mapbook")
        #expect(package.info.snippet == "States, highways and cities")
        #expect(package.info.mapNames == ["USA"])
        #expect(package.info.thumbnail?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(package.info.modified == Date(timeIntervalSince1970: 1_700_000_500))
        #expect(package.isFolder == (form == .folder))
        #expect(package.maps.map(\.name) == ["USA"])
        #expect(package.problems.isEmpty, "\(package.problems)")
        let map = try #require(package.maps.first)
        #expect(map.webMap.bookmarks.map(\.name) == ["New England", "Texas"])
        #expect(package.layers(of: map).map(\.data) == [
            .tilePackage(file: "p13/states.tpk"),
            .geodatabase(file: "p13/usa.geodatabase", itemID: 2),
            .geodatabase(file: "p13/usa.geodatabase", itemID: 1),
            .geodatabase(file: "p13/usa.geodatabase", itemID: 0),
            .notDrawn("Weather is an online layer (WMS); only what the package holds is drawn."),
        ])
    }

    /// The package alone draws the basemap's tiles and the three layers, and identifies with the
    /// map's popup (its title and field labels) where the map gives one.
    @Test(arguments: Form.allCases) func itsMapIsDrawnAndIdentified(form: Form) async throws {
        let package = try MobileMapPackage(path: try Self.make(form))
        let opened = MobileMapLayers.open(package.maps[0], in: package)
        #expect(opened.problems == ["Weather is an online layer (WMS); only what the package holds is drawn."])
        #expect(opened.features.map(\.title) == ["States", "Highways", "Cities"])
        #expect(opened.features.first?.opacity == 0.5)
        #expect(opened.tiles.count == 1)
        #expect(opened.bookmarks.count == 2)
        let home = try #require(opened.home)
        #expect(home.xmin == -125 && home.xmax == -66, "the map item's extent")
        let stack = try #require(opened.stack)
        let newEngland = MapRequest(viewport: MapViewport(center: MercatorPoint(GeoPoint(longitude: -71.5, latitude: 43)), zoom: 6.2),
                                    columns: 100, rows: 32, mode: .braille, colors: false)
        let image = await stack.render(newEngland)
        #expect(image.report.featuresDrawn > 10)
        #expect(image.frame.text.contains("●"), "the cities' markers")
        let maine = GeoPoint(longitude: -69.2, latitude: 45.3)
        let request = MapRequest(viewport: MapViewport(center: MercatorPoint(maine), zoom: 7), columns: 100, rows: 32)
        #expect(await stack.identify(at: maine, request: request).map(\.card.title) == ["Maine"])
        let boston = GeoPoint(longitude: -71.0891, latitude: 42.3216)
        let atBoston = await stack.identify(at: boston, request: MapRequest(viewport: MapViewport(center: MercatorPoint(boston), zoom: 9), columns: 100, rows: 32))
        let city = try #require(atBoston.first)
        #expect(city.card.title == "City: Boston")
        #expect(city.card.rows.map(\.label) == ["Name", "State"])
    }

    /// Paths that lead outside the package, to a file it does not hold or a layer its geodatabase
    /// lacks: each one sentence; the rest of the map is drawn.
    @Test(arguments: Form.allCases) func badPathsAreNamedAndTheRestIsDrawn(form: Form) throws {
        let map = Self.mapJSON { text in
            text = text.replacingOccurrences(of: "file:./usa.geodatabase?itemId=1", with: "file:../../../etc/passwd.geodatabase?itemId=1")
            text = text.replacingOccurrences(of: "file:./usa.geodatabase?itemId=0", with: "file:./usa.geodatabase?itemId=9")
            text = text.replacingOccurrences(of: "file:./states.tpk", with: "file:./missing.tpk")
        }
        let package = try MobileMapPackage(path: try Self.make(form, replacing: ["p13/mobile_map.mmap": map]))
        let opened = MobileMapLayers.open(package.maps[0], in: package)
        #expect(opened.problems == [
            "States basemap names ./missing.tpk, which the package does not hold.",
            "Highways names ../../../etc/passwd.geodatabase, which the package does not hold.",
            "Cities names layer 9 of p13/usa.geodatabase, which holds no such layer.",
            "Weather is an online layer (WMS); only what the package holds is drawn.",
        ])
        #expect(opened.features.map(\.title) == ["States"])
        #expect(opened.stack == nil, "no tile layer: the caller draws the world outline")
    }

    @Test func aLinkOutOfAnUnpackedPackageIsNotFollowed() throws {
        let path = try Self.make(.folder, replacing: ["p13/usa.geodatabase": nil])
        try FileManager.default.createSymbolicLink(atPath: path + "/p13/usa.geodatabase", withDestinationPath: SharedData.url("features/usa.geodatabase").path)
        let package = try MobileMapPackage(path: path)
        #expect(throws: MobilePackageError("p13/usa.geodatabase leads outside the package, so it is not read.")) {
            try package.localPath(of: "p13/usa.geodatabase")
        }
        let opened = MobileMapLayers.open(package.maps[0], in: package)
        #expect(opened.features.isEmpty)
        #expect(opened.problems.first == "p13/usa.geodatabase leads outside the package, so it is not read.", "said once for its three layers")
        #expect(opened.problems.count == 2)
    }

    @Test func aDamagedGeodatabaseIsOneSentence() throws {
        let path = try Self.make(.zip, replacing: ["p13/usa.geodatabase": Data(repeating: 0x41, count: 5000)])
        let package = try MobileMapPackage(path: path)
        let opened = MobileMapLayers.open(package.maps[0], in: package)
        #expect(opened.features.isEmpty)
        #expect(opened.tiles.count == 1, "the basemap still draws")
        let first = try #require(opened.problems.first)
        #expect(first.hasPrefix("p13/usa.geodatabase: "), "\(first)")
        #expect(opened.problems.count == 2)
    }

    /// Maps that do not parse, maps listed and missing, several maps in the package's order.
    @Test func mapsAreTakenInTheListedOrderAndBadOnesAreNamed() throws {
        let info = Data(#"{"title": "Two", "maps": ["Second", "Lost", "USA"]}"#.utf8)
        let second = Self.mapJSON { $0 = $0.replacingOccurrences(of: #""title": "USA""#, with: #""title": "Second""#) }
        let package = try MobileMapPackage(path: try Self.make(.zip, replacing: [
            "package.info": info, "p13/second.mmap": second, "p13/broken.mmap": Data("{not json".utf8), "p12/notamap.mmap": Data("{}".utf8),
        ]))
        #expect(package.maps.map(\.name) == ["Second", "USA"])
        #expect(package.problems.count == 3, "\(package.problems)")
        #expect(package.problems.contains("It lists the map Lost, which it does not hold."))
        #expect(package.problems.contains { $0.hasPrefix("p13/broken.mmap does not read (") })
        #expect(package.problems.contains("p12/notamap.mmap is not a map (it has no \"map\"), so it is left out."))
    }

    /// A map whose bytes do not match the zip's checksum is left out, with the reason.
    @Test func aDamagedMapIsLeftOutWithItsReason() throws {
        let path = try Self.make(.zip, replacing: ["p13/second.mmap": Self.mapJSON { $0 = $0.replacingOccurrences(of: #""title": "USA""#, with: #""title": "Two""#) }])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let at = try #require(bytes.range(of: Data(#""title": "Two""#.utf8)))
        bytes[at.lowerBound + 10] = UInt8(ascii: "X")
        try bytes.write(to: URL(fileURLWithPath: path))
        let package = try MobileMapPackage(path: path)
        #expect(package.maps.map(\.name) == ["USA"])
        #expect(package.problems == ["p13/second.mmap does not read (p13/second.mmap fails its CRC check), so it is left out."])
    }

    @Test func whatIsNotAPackageSaysSo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mmpk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try TestMobilePackage.zip(["package.info": Data(TestMobilePackage.info.utf8)], to: dir + "/empty.mmpk")
        #expect(throws: MobilePackageError("empty.mmpk holds no map that can be read (no pNN/*.mmap in it).")) {
            try MobileMapPackage(path: dir + "/empty.mmpk")
        }
        try Data("not a zip at all".utf8).write(to: URL(fileURLWithPath: dir + "/text.mmpk"))
        #expect(MobileMapPackage.recognizes(path: dir + "/text.mmpk"), "a .mmpk is taken as one, so its error names it")
        #expect(throws: MobilePackageError.self) { try MobileMapPackage(path: dir + "/text.mmpk") }
        #expect(!MobileMapPackage.recognizes(path: SharedData.url("raster/tpk/states_filled.tpk").path))
        #expect(!MobileMapPackage.recognizes(path: SharedData.url("features/usa.geodatabase").path))
        // A truncated package: its directory is gone.
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Self.make(.zip)))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: dir + "/cut.mmpk"))
        do {
            _ = try MobileMapPackage(path: dir + "/cut.mmpk")
            Issue.record("a truncated package opened")
        } catch {
            #expect(error.sentence.hasPrefix("cut.mmpk is not a mobile map package that can be read: "), "\(error.sentence)")
        }
    }
}
