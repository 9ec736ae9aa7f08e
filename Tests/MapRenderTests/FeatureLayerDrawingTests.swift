import Foundation
import MapbookCore
import TerminalCanvas
import Testing
@testable import MapRender
import MapSources
import ArcGISModel
import Geometry
import TileFormats

/// Operational layers over a basemap: each renderer type mapped to glyphs and colours, fills
/// blended with what is below, labels beside points, hit tests within a tolerance.
@Suite("Operational layers drawn")
struct FeatureLayerDrawingTests {
    static let centre = GeoPoint(longitude: -69, latitude: 45)
    static let viewport = MapViewport(center: MercatorPoint(centre), zoom: 8)

    static func marker(_ style: String, _ r: UInt8, _ g: UInt8, _ b: UInt8) -> FeatureSymbol {
        FeatureSymbol(kind: .marker(style: style), color: SymbolColor(r: r, g: g, b: b), size: 8)
    }

    static let towns: FeatureLayerInfo = {
        let renderer = FeatureRenderer(kind: .uniqueValue(fields: ["kind"], delimiter: ","), classes: [
            RendererClass(match: .value("city"), label: "City", symbol: marker("esriSMSSquare", 255, 0, 0)),
            RendererClass(match: .value("town"), label: "Town", symbol: marker("esriSMSCircle", 0, 0, 255)),
        ], defaultSymbol: marker("esriSMSTriangle", 0, 255, 0), defaultLabel: "Other")
        return FeatureLayerInfo(name: "Towns", geometryType: .point, renderer: renderer, labeling: FeatureLabeling(parts: [.field("name")]))
    }()

    /// A point `dx`, `dy` cells from the centre of a 40 × 12 view.
    static func point(cells dx: Int, _ dy: Int) -> GeoPoint {
        let r = viewport.resolution
        return MercatorPoint(x: MercatorPoint(centre).x + (Double(dx * 2) + 1) * r, y: MercatorPoint(centre).y - (Double(dy * 4) + 2) * r).geographic
    }

    func draw(_ scenes: [FeatureLayerScene], colors: Bool = true) -> (Frame, MapDrawReport) {
        var frame = Frame(width: 40, height: 12)
        let background = MapScene(viewport: Self.viewport, tiles: [], colors: colors)
        let report = MapComposer.draw([background], features: scenes, into: &frame, rect: frame.bounds)
        return (frame, report)
    }

    @Test func pointsShowAsTheirClassesGlyphsInTheirColoursWithLabels() {
        let features = [("city", "Alpha", 0, 0), ("town", "Beta", -10, -3), ("hamlet", "Gamma", 8, 3)].map { kind, name, dx, dy in
            LayerFeature(geometry: .points([Self.point(cells: dx, dy)]), attributes: ["kind": .string(kind), "name": .string(name)])
        } + [LayerFeature(geometry: nil, attributes: ["kind": .string("city")])]
        let layer = PreparedFeatureLayer(info: Self.towns, features: features)
        #expect(layer.withoutGeometry == 1)
        let (frame, report) = draw([FeatureLayerScene(layer: layer)])
        #expect(frame[20, 6].character == "■" && frame[20, 6].style.foreground == XtermPalette.nearest(r: 255, g: 0, b: 0))
        #expect(frame[10, 3].character == "●" && frame[10, 3].style.foreground == XtermPalette.nearest(r: 0, g: 0, b: 255))
        #expect(frame[28, 9].character == "▲" && frame[28, 9].style.foreground == XtermPalette.nearest(r: 0, g: 255, b: 0))
        // Labels to the right of their markers, never over one.
        #expect(String((0..<40).map { frame[$0, 6].character }).contains("■ Alpha"))
        #expect(report.featuresDrawn == 3 && report.labelsPlaced == 3)
        // ASCII stand-ins.
        var ascii = Frame(width: 40, height: 12)
        MapComposer.draw([MapScene(viewport: Self.viewport, mode: .ascii, tiles: [])], features: [FeatureLayerScene(layer: layer)],
                         into: &ascii, rect: ascii.bounds)
        #expect(ascii[20, 6].character == "#" && ascii[10, 3].character == "o" && ascii[28, 9].character == "^")
    }

    @Test func classBreakFillsBlendWithTheBasemapByTheirAlphaAndTheLayersOpacity() {
        let fill = FeatureSymbol(kind: .fill(style: "esriSFSSolid"), color: SymbolColor(r: 0, g: 0, b: 255, a: 255),
                                 outline: SymbolColor(r: 0, g: 0, b: 0), size: 1)
        let renderer = FeatureRenderer(kind: .classBreaks(field: "v"), classes: [
            RendererClass(match: .range(lower: 0, upper: 10, inclusiveLower: true), label: "Low", symbol: fill),
        ])
        let info = FeatureLayerInfo(name: "Areas", geometryType: .polygon, renderer: renderer)
        let ring = [Self.point(cells: -15, -5), Self.point(cells: 15, -5), Self.point(cells: 15, 4), Self.point(cells: -15, 4), Self.point(cells: -15, -5)]
        let layer = PreparedFeatureLayer(info: info, features: [LayerFeature(geometry: .polygons([[ring]]), attributes: ["v": .number(5)])])
        let (opaque, _) = draw([FeatureLayerScene(layer: layer, opacity: 1)])
        let (half, _) = draw([FeatureLayerScene(layer: layer, opacity: 0.5)])
        let blue = XtermPalette.nearest(r: 0, g: 0, b: 255)
        #expect(opaque[20, 6].style.background == blue)
        // Half see-through over the neutral grey: neither blue nor grey.
        let mixed = half[20, 6].style.background
        #expect(mixed != nil && mixed != blue && mixed != MapComposer.noDataOnDark)
        // Outside the polygon, the basemap as it was.
        #expect(half[1, 0].style.background == MapComposer.noDataOnDark)
        // Out of its class (v = 50): the fallback fill, drawn all the same.
        let other = PreparedFeatureLayer(info: info, features: [LayerFeature(geometry: .polygons([[ring]]), attributes: ["v": .number(50)])])
        #expect(draw([FeatureLayerScene(layer: other)]).0[20, 6].style.background != MapComposer.noDataOnDark)
    }

    @Test func aServersPictureLiesBetweenTheFeatureLayersUnderAndOverIt() {
        func area(_ name: String, _ r: UInt8, _ g: UInt8, _ b: UInt8, from x0: Int, to x1: Int) -> FeatureLayerScene {
            let fill = FeatureSymbol(kind: .fill(style: "esriSFSSolid"), color: SymbolColor(r: r, g: g, b: b))
            let info = FeatureLayerInfo(name: name, geometryType: .polygon, renderer: FeatureRenderer(kind: .simple, classes: [], defaultSymbol: fill))
            let ring = [Self.point(cells: x0, -5), Self.point(cells: x1, -5), Self.point(cells: x1, 4), Self.point(cells: x0, 4), Self.point(cells: x0, -5)]
            return FeatureLayerScene(layer: PreparedFeatureLayer(info: info, features: [LayerFeature(geometry: .polygons([[ring]]), attributes: [:])]))
        }
        // Red under the picture, blue over it; the picture green, opaque, across the whole view.
        let red = area("Under", 255, 0, 0, from: -18, to: 0), blue = area("Over", 0, 0, 255, from: 0, to: 18)
        let projection = Self.viewport.projection(columns: 40, rows: 12)
        let green = RasterImage(width: 4, height: 4, rgba: [UInt8]((0..<16).flatMap { _ in [0, 200, 0, 255] as [UInt8] }))
        func picture(over below: Int) -> PlacedImage {
            PlacedImage(image: green, left: projection.left, top: projection.top, right: projection.left + 80 / projection.scale,
                        bottom: projection.top - 48 / projection.scale, featuresBelow: below)
        }
        func drawn(_ image: PlacedImage) -> Frame {
            var frame = Frame(width: 40, height: 12)
            MapComposer.draw([MapScene(viewport: Self.viewport, tiles: [])], images: [image], features: [red, blue], into: &frame, rect: frame.bounds)
            return frame
        }
        let (redCell, blueCell) = (XtermPalette.nearest(r: 255, g: 0, b: 0), XtermPalette.nearest(r: 0, g: 0, b: 255))
        let between = drawn(picture(over: 1))
        #expect(between[10, 6].style.background != redCell, "the picture covers the layer under it")
        #expect(between[30, 6].style.background == blueCell, "the layer over the picture shows")
        let under = drawn(picture(over: 0))
        #expect(under[10, 6].style.background == redCell && under[30, 6].style.background == blueCell)
        let over = drawn(picture(over: 2))
        #expect(over[10, 6].style.background != redCell && over[30, 6].style.background != blueCell)
    }

    @Test func hitsAreWithinTheToleranceTopmostFirstAndPolygonsCoverTheirInside() {
        let near = Self.point(cells: 0, 0), far = Self.point(cells: 12, 0)
        let features = [LayerFeature(geometry: .points([near]), attributes: ["n": .number(1)]),
                        LayerFeature(geometry: .points([far]), attributes: ["n": .number(2)]),
                        LayerFeature(geometry: .points([near]), attributes: ["n": .number(3)])]
        let layer = PreparedFeatureLayer(info: Self.towns, features: features)
        let tolerance = Self.viewport.resolution * 4
        #expect(layer.hits(at: MercatorPoint(near), tolerance: tolerance) == [2, 0])
        #expect(layer.hits(at: MercatorPoint(Self.point(cells: 6, 0)), tolerance: tolerance).isEmpty)
        let square = [Self.point(cells: -5, -2), Self.point(cells: 5, -2), Self.point(cells: 5, 2), Self.point(cells: -5, 2), Self.point(cells: -5, -2)]
        let info = FeatureLayerInfo(name: "A", geometryType: .polygon, renderer: FeatureRenderer(kind: .simple, classes: []))
        let polygons = PreparedFeatureLayer(info: info, features: [LayerFeature(geometry: .polygons([[square]]), attributes: [:])])
        #expect(polygons.hits(at: MercatorPoint(Self.point(cells: 1, 1)), tolerance: 0) == [0])
        #expect(polygons.hits(at: MercatorPoint(Self.point(cells: 9, 1)), tolerance: tolerance).isEmpty)
        let lines = PreparedFeatureLayer(info: FeatureLayerInfo(name: "L", geometryType: .polyline, renderer: FeatureRenderer(kind: .simple, classes: [])),
                                         features: [LayerFeature(geometry: .lines([[Self.point(cells: -5, 0), Self.point(cells: 5, 0)]]), attributes: [:])])
        #expect(lines.hits(at: MercatorPoint(Self.point(cells: 2, 0)), tolerance: tolerance) == [0])
        #expect(lines.hits(at: MercatorPoint(Self.point(cells: 2, 3)), tolerance: tolerance).isEmpty)
    }

    @Test func theLegendNamesEachClassWithItsSwatch() {
        let entries = MapLegend.entries(for: Self.towns)
        #expect(entries.map(\.label) == ["City", "Town", "Other"])
        #expect(entries.map { $0.glyph(ascii: false) } == ["■", "●", "▲"])
        #expect(entries[0].color == XtermPalette.nearest(r: 255, g: 0, b: 0))
    }

    @Test func aHundredThousandFeaturesAreReadAndDrawnWithoutTrouble() throws {
        var json = #"{"exceededTransferLimit":false,"features":["#
        for index in 0..<100_000 {
            let x = -69.5 + Double(index % 1000) / 1000, y = 44.5 + Double(index / 1000) / 100
            json += (index > 0 ? "," : "") + #"{"attributes":{"kind":"town","name":"T\#(index)"},"geometry":{"x":\#(x),"y":\#(y)}}"#
        }
        json += "]}"
        let (features, more) = EsriFeatures.features(in: try JSONValue(parsing: Data(json.utf8)))
        #expect(features.count == 100_000 && !more)
        let layer = PreparedFeatureLayer(info: Self.towns, features: features)
        let (frame, report) = draw([FeatureLayerScene(layer: layer)])
        #expect(report.featuresDrawn > 0 && report.featuresDrawn <= 100_000)
        #expect(frame.text.contains("●"))
    }
}

/// An operational layer's service that fails is not asked again at every drawing: each drawing
/// waits for the query, and a service that hangs until its stall timeout would hold up every one.
@Suite("Operational layers online")
struct FeatureLayerLoaderTests {
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
        var count: Int { lock.lock(); defer { lock.unlock() }; return value }
    }

    struct Down: Error {}

    @Test func aFailingServiceIsNotAskedAgainAtOnce() async {
        let calls = Counter()
        let loader = FeatureLayerLoader(title: "Places", info: FeatureLayerDrawingTests.towns) { _ in
            _ = calls.next()
            throw Down()
        }
        let view = FeatureLayerDrawingTests.viewport
        let first = await loader.features(for: view, columns: 40, rows: 12)
        let moved = await loader.features(for: view.zoomed(by: 4), columns: 40, rows: 12)
        #expect(calls.count == 1)
        #expect(first.problem?.hasPrefix("Places could not be loaded:") == true && moved.problem == first.problem && moved.layer == nil)
    }

    /// A stored copy that stopped at its limit says how many features it left out, when known.
    @Test func aCappedCopySaysHowManyAreMissing() async {
        let info = FeatureLayerDrawingTests.towns
        let known = FeatureLayerLoader(title: "Docks", info: info, features: [], capped: true, leftOut: 1_204)
        let unknown = FeatureLayerLoader(title: "Docks", info: info, features: [], capped: true)
        let view = MapViewport(center: MercatorPoint(GeoPoint(longitude: -68, latitude: 44)), zoom: 10)
        #expect(await known.features(for: view, columns: 40, rows: 10).problem
                == "Docks: the copy on this device stopped at its limit; 1,204 features are missing.")
        #expect(await unknown.features(for: view, columns: 40, rows: 10).problem?.hasSuffix("some features are missing.") == true)
    }

    /// An identified point's marker keeps the map's background under it: no cell of the terminal's black.
    @Test func anIdentifiedPointKeepsTheMapsBackground() {
        let viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: -69, latitude: 44)), zoom: 8)
        var frame = Frame(width: 20, height: 6)
        for y in 0..<6 { for x in 0..<20 { frame[x, y] = Cell(" ", style: CellStyle(background: 188)) } }
        let point = GeoGeometry.points([GeoPoint(longitude: -69, latitude: 44)])
        FeatureHighlight.drawPath(point, viewport: viewport, into: &frame, rect: frame.bounds, ascii: false, colors: true)
        FeatureHighlight.names(point, title: "", viewport: viewport, size: (20, 6), ascii: false)
            .draw(into: &frame, rect: frame.bounds, colors: true)
        let marked = frame.cells.filter { $0.character == "◉" }
        #expect(marked.count == 1 && marked.allSatisfy { $0.style.background == 188 && $0.style.foreground == FeatureHighlight.color })
    }
}
