import Foundation
import MapRender
import MapSources
import MapbookCore
import PortalFixtures
import TileFormats
import Testing
import TerminalCanvas
import Geometry

/// Damaged input draws what it can and says what it left out; nothing crashes.
@Suite struct HostileMapTests {
    static func folder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-hostile-\(UUID())")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ data: Data, _ z: Int, _ x: Int, _ y: Int, in root: URL) {
        let dir = root.appendingPathComponent("\(z)/\(x)")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try! data.write(to: dir.appendingPathComponent("\(y).pbf"))
    }

    static func tile(_ points: [MVTPoint], type: MVTGeometryType, name: String = "roads") -> Data {
        var builder = MVTLayerBuilder(name: name)
        let geometry = MVTGeometry(points: points, partEnds: [points.count], exteriorRings: type == .polygon ? [true] : [])
        builder.add(type: type, geometry: geometry, properties: [(key: "name", value: .string("Main St"))])
        return Deflate.deflate(MVTTile(layers: [builder.layer]).encoded())
    }

    @Test func badGzipBadMVTAndAbsurdCoordinatesDrawWhatTheyCan() async throws {
        let root = Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        // Four tiles at zoom 2 in a square: one good, one bad gzip, one not MVT, one with far-away vertices.
        Self.write(Self.tile([MVTPoint(x: 0, y: 2048), MVTPoint(x: 4096, y: 2048)], type: .lineString), 2, 1, 1, in: root)
        Self.write(Data([0x1F, 0x8B, 0x08, 0x00]) + Data(repeating: 0xAB, count: 300), 2, 2, 1, in: root)
        Self.write(Data(repeating: 0xFF, count: 64), 2, 1, 2, in: root)
        let far = Int32.max / 2
        Self.write(Self.tile([MVTPoint(x: -far, y: -far), MVTPoint(x: far, y: 100), MVTPoint(x: 100, y: far)], type: .polygon,
                             name: "land"), 2, 2, 2, in: root)
        let source = try TileFolderSource(path: root.path)
        let viewport = MapViewport(center: MercatorPoint(x: 0, y: 0), zoom: 3.2)
        for mode in MapMode.allCases {
            let image = await MapStack(source).render(MapRequest(viewport: viewport, columns: 80, rows: 24, mode: mode))
            #expect(image.problems.count == 1)
            #expect(image.problems.first?.hasPrefix("2 tiles could not be drawn") == true)
            #expect(image.report.featuresDrawn >= 2, "the good line and the far-flung polygon are drawn")
        }
    }

    @Test func damagedBundleBytesAreReported() async throws {
        let package = SampleFixture.content.packages.values.first { $0.name.contains("Acadia") }!
        var bytes = package.data
        // Overwrite a stretch in the middle of the file, where tile data lies.
        let start = bytes.count / 2
        bytes.replaceSubrange(start..<start + 200_000, with: Data(repeating: 0xFF, count: 200_000))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-damaged-\(UUID()).vtpk").path
        FileManager.default.createFile(atPath: path, contents: bytes)
        defer { unlink(path) }
        let source = try PackageMapSource(path: path)
        var problems: [String] = []
        for zoom in stride(from: 9.0, through: 15, by: 1) {
            let viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: -68.3, latitude: 44.33)), zoom: zoom)
            let image = await MapStack(source).render(MapRequest(viewport: viewport, columns: 100, rows: 30))
            problems += image.problems
        }
        #expect(problems.contains { $0.contains("could not be drawn") })
    }

    @Test func truncatedPackageFailsToOpenWithOneSentence() throws {
        let package = SampleFixture.content.packages.values.first { $0.name.contains("Acadia") }!
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-truncated-\(UUID()).vtpk").path
        FileManager.default.createFile(atPath: path, contents: package.data.prefix(package.data.count / 2))
        defer { unlink(path) }
        #expect(throws: MapSourceError.self) { try PackageMapSource(path: path) }
        do { _ = try PackageMapSource(path: path) } catch {
            #expect(error.userSentence.contains("cannot be opened"))
            #expect(!error.userSentence.contains("\n"))
        }
    }

    @Test func viewportTilesAndZoomTowardThePointer() {
        let viewport = MapViewport(center: MercatorPoint(x: 0, y: 0), zoom: 3)
        let keys = viewport.tiles(atZoom: 2, columns: 80, rows: 24)
        #expect(Set(keys) == [TileKey(z: 2, x: 1, y: 1), TileKey(z: 2, x: 2, y: 1), TileKey(z: 2, x: 1, y: 2), TileKey(z: 2, x: 2, y: 2)])
        #expect(viewport.tileZoom(tileSize: 512, available: 0...14) == 2)
        #expect(viewport.tileZoom(tileSize: 256, available: 0...2) == 2)
        #expect(MapViewport(center: viewport.center, zoom: 40).zoom == MapViewport.zoomRange.upperBound)
        // The point under the anchor stays put when zooming.
        let anchor = (x: 30.0, y: -10.0)
        let before = (x: viewport.center.x + anchor.x * viewport.resolution, y: viewport.center.y - anchor.y * viewport.resolution)
        let zoomed = viewport.zoomed(by: 2, anchor: anchor)
        let after = (x: zoomed.center.x + anchor.x * zoomed.resolution, y: zoomed.center.y - anchor.y * zoomed.resolution)
        #expect(abs(before.x - after.x) < 1e-6 && abs(before.y - after.y) < 1e-6)
        // Panning by a screen's worth of dots moves the centre by that many metres.
        let panned = viewport.panned(dotsX: 10, dotsY: 0)
        #expect(abs(panned.center.x - 10 * viewport.resolution) < 1e-6)
        #expect(abs(viewport.scale - 73_957_338) < 1_000)
    }

    @Test func labelsNeverOverlap() {
        // Many points with the same long name would pile up; placed labels must not share cells.
        var builder = MVTLayerBuilder(name: "places")
        for i in 0..<200 {
            let point = MVTPoint(x: Int32(1600 + i * 5), y: Int32(1900 + (i * 37) % 300))
            builder.add(type: .point, geometry: MVTGeometry(points: [point], partEnds: [1]), properties: [(key: "name", value: .string("Place \(i)"))])
        }
        let tile = MapTile(key: TileKey(z: 0, x: 0, y: 0), vector: MVTTile(layers: [builder.layer]))
        let scene = MapScene(viewport: MapViewport(center: MercatorPoint(x: 0, y: 0), zoom: 1), tiles: [tile])
        var frame = Frame(width: 60, height: 20)
        let report = MapComposer.draw(scene, into: &frame, rect: frame.bounds)
        #expect(report.labelsPlaced > 5)
        // Every placed label is still whole on screen: none was drawn over another.
        let whole = frame.text.matches(of: /Place \d+/).count
        #expect(whole == report.labelsPlaced)
    }

    /// A style whose `text-field` is 200,000 characters of unclosed `{` (and a feature whose name is
    /// as long): cut before any work is done on it; the label is at most 32 characters.
    @Test func aHugeTextFieldIsCutBeforeItIsWorkedOn() throws {
        let template = String(repeating: "{", count: 200_000) + "{name}"
        let styleJSON = #"{"version":8,"sources":{},"layers":[{"id":"p","type":"symbol","source":"s","source-layer":"places","#
            + #""layout":{"text-field":"\#(template)"}}]}"#
        let style = MapStyle(try VectorStyle(data: Data(styleJSON.utf8)))
        var builder = MVTLayerBuilder(name: "places")
        builder.add(type: .point, geometry: MVTGeometry(points: [MVTPoint(x: 2048, y: 2048)], partEnds: [1]),
                    properties: [(key: "name", value: .string(String(repeating: "Long ", count: 40_000)))])
        let tile = MapTile(key: TileKey(z: 0, x: 0, y: 0), vector: MVTTile(layers: [builder.layer]))
        let scene = MapScene(viewport: MapViewport(center: MercatorPoint(x: 0, y: 0), zoom: 1), style: style, tiles: [tile])
        var frame = Frame(width: 100, height: 20)
        let report = MapComposer.draw(scene, into: &frame, rect: frame.bounds)
        #expect(report.labelsPlaced == 1)
        let longest = frame.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces).count }.max() ?? 0
        #expect(longest <= 32)
    }
}
