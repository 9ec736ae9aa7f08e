import Foundation
import Testing
import Geometry
@testable import MapRender
import TerminalCanvas
import TileFormats

/// A tile keeps the names its symbol layers find (`TileName`), so a pan does not look for them
/// anew: what it keeps must be what a tile drawn for the first time shows, whatever drew it before.
@Suite struct TileNamesTests {
    /// Two towns and a road, with a `name` and a `ref` each.
    static func tile() -> MapTile {
        var places = MVTLayerBuilder(name: "places")
        places.add(type: .point, geometry: MVTGeometry(points: [MVTPoint(x: 1750, y: 1900)], partEnds: [1]),
                   properties: [("name", .string("Eastport")), ("ref", .string("E1"))])
        places.add(type: .point, geometry: MVTGeometry(points: [MVTPoint(x: 2300, y: 2150)], partEnds: [1]),
                   properties: [("name", .string("Lubec")), ("ref", .string("L2"))])
        var roads = MVTLayerBuilder(name: "roads")
        roads.add(type: .lineString, geometry: MVTGeometry(points: [MVTPoint(x: 1600, y: 2300), MVTPoint(x: 2500, y: 2310)], partEnds: [2]),
                  properties: [("name", .string("Shore Road")), ("ref", .string("US 1"))])
        return MapTile(key: TileKey(z: 0, x: 0, y: 0), vector: MVTTile(layers: [places.layer, roads.layer]))
    }

    static func style(_ field: String) throws -> MapStyle {
        let json = #"{"version":8,"sources":{},"layers":["#
            + #"{"id":"towns","type":"symbol","source":"s","source-layer":"places","layout":{"text-field":"{\#(field)}"}},"#
            + #"{"id":"roads","type":"symbol","source":"s","source-layer":"roads","layout":{"text-field":"{\#(field)}"}}]}"#
        return MapStyle(try VectorStyle(data: Data(json.utf8)))
    }

    static func drawn(_ tile: MapTile, style: MapStyle, zoom: Double, center: MercatorPoint = MercatorPoint(x: 0, y: 0)) -> String {
        var frame = Frame(width: 70, height: 20)
        MapComposer.draw(MapScene(viewport: MapViewport(center: center, zoom: zoom), style: style, tiles: [tile]), into: &frame, rect: frame.bounds)
        return frame.text
    }

    @Test func aTileDrawnByAnotherStyleShowsThatStylesNames() throws {
        let tile = Self.tile()
        let byName = Self.drawn(tile, style: try Self.style("name"), zoom: 1)
        #expect(byName.contains("Eastport") && byName.contains("Shore Road"))
        let byRef = Self.drawn(tile, style: try Self.style("ref"), zoom: 1)
        #expect(byRef.contains("E1") && byRef.contains("US 1") && !byRef.contains("Eastport"))
        #expect(byRef == Self.drawn(Self.tile(), style: try Self.style("ref"), zoom: 1))
    }

    @Test(arguments: [0.6, 1.4, 1.0])
    func aTileDrawnAtAnotherScaleOrViewPlacesItsNamesAsAFreshOne(zoom: Double) throws {
        let style = try Self.style("name")
        let tile = Self.tile()
        _ = Self.drawn(tile, style: style, zoom: 1)
        // Another scale (its names found again), or the same scale moved (its names moved).
        let center = zoom == 1 ? MercatorPoint(x: 1_500_000, y: -600_000) : MercatorPoint(x: 0, y: 0)
        let again = Self.drawn(tile, style: style, zoom: zoom, center: center)
        #expect(again == Self.drawn(Self.tile(), style: style, zoom: zoom, center: center))
        #expect(again.contains("Lubec"))
    }
}
