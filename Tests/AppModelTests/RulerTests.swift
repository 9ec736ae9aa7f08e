import Foundation
import MapRender
import MapSources
import MapbookCore
import TerminalCanvas
import Testing
@testable import AppModel
import Geometry
import UserFiles

/// The ruler (`R`): great-circle distance and bearing from where it started to the centre, a path
/// of several segments with its total; one card over the map at a time.
@Suite("The ruler and the map's cards")
struct RulerTests {
    /// Haversine, written out here as the reference the ruler is held to.
    static func haversine(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let r = Double.pi / 180
        let h = pow(sin((b.latitude - a.latitude) * r / 2), 2) + cos(a.latitude * r) * cos(b.latitude * r) * pow(sin((b.longitude - a.longitude) * r / 2), 2)
        return 2 * 6_371_008.8 * asin(h.squareRoot())
    }

    @Test func distancesAndBearingsOnTheSphere() {
        let bangor = GeoPoint(longitude: -68.7726, latitude: 44.8012), barHarbor = GeoPoint(longitude: -68.2039, latitude: 44.3876)
        let meters = Geodesy.distance(bangor, barHarbor)
        #expect(abs(meters - Self.haversine(bangor, barHarbor)) / meters < 0.005)
        #expect(abs(meters - 63_700) < 700, "\(meters)")
        // JFK to LAX: 3,974 km on the sphere of mean radius (3,983 km on the ellipsoid: within 0.5 %).
        let jfkLax = Geodesy.distance(GeoPoint(longitude: -73.7781, latitude: 40.6413), GeoPoint(longitude: -118.4085, latitude: 33.9416))
        #expect(abs(jfkLax - 3_974_300) < 1_000 && abs(jfkLax - 3_983_000) / 3_983_000 < 0.005)
        #expect(Geodesy.compassPoint(Geodesy.bearing(from: bangor, to: barHarbor)) == "SE")
        #expect(abs(Geodesy.bearing(from: GeoPoint(longitude: 0, latitude: 0), to: GeoPoint(longitude: 1, latitude: 0)) - 90) < 1e-9)
        #expect(Geodesy.length([bangor, barHarbor, bangor]) == 2 * meters)
        #expect(DistanceUnits.imperial.format(1609.344 * 3.2) == "3.2 mi" && DistanceUnits.metric.format(12_400) == "12.4 km")
        #expect(DistanceUnits.imperial.format(100) == "328 ft")
        #expect(DistanceUnits.forLocale(Locale(identifier: "en_US")) == .imperial && DistanceUnits.forLocale(Locale(identifier: "de_DE")) == .metric)
    }

    @Test func theRulerMeasuresFromWhereItStartedToTheCentreAndAddsPoints() {
        var state = IdentifyTests.openMap()
        let start = state.map!.viewport.center.geographic
        _ = Fixture.keys(&state, .character("R"))
        #expect(state.map?.ruler == Ruler(start: start))
        _ = Fixture.keys(&state, .right, .right, .right)
        let centre = state.map!.viewport.center.geographic
        guard let ruler = state.map?.ruler else { Issue.record("no ruler"); return }
        #expect(abs(ruler.length(to: centre) - Self.haversine(start, centre)) / Self.haversine(start, centre) < 0.005)
        #expect(ruler.sentence(to: centre, units: .metric).contains("bearing 9") && ruler.sentence(to: centre, units: .metric).contains("E"))
        // Enter (or R) fixes the point; a second segment; the total.
        _ = Fixture.keys(&state, .enter, .down, .down)
        let end = state.map!.viewport.center.geographic
        guard let second = state.map?.ruler else { Issue.record("no ruler"); return }
        #expect(second.points == [start, centre])
        let total = Self.haversine(start, centre) + Self.haversine(centre, end)
        #expect(abs(second.length(to: end) - total) / total < 0.005)
        #expect(second.sentence(to: end, units: .metric).contains("total") && second.sentence(to: end, units: .metric).contains("2 segments"))
        _ = Fixture.keys(&state, .escape)
        #expect(state.map?.ruler == nil && state.map != nil, "Esc ends the ruler, and the map stays")
    }

    /// However they are opened, at most one card lies over the map, and Esc closes it.
    @Test func noMapCardCoexistsWithAnother() {
        var state = IdentifyTests.openMap()
        let cards: [(Key, (MapViewState) -> Bool)] = [
            (.character("L"), { $0.panel == .layers }),
            (.character("w"), { $0.whatsHere != nil }),
            (.character("i"), { $0.identify != nil }),
            (.character("R"), { $0.ruler != nil }),
            (.character("L"), { $0.panel == .layers }),
        ]
        for (key, isOpen) in cards {
            _ = Fixture.keys(&state, key)
            guard let map = state.map else { Issue.record("no map"); return }
            #expect(isOpen(map), "\(key)")
            let open = [map.panel != nil, map.whatsHere != nil, map.identify != nil, map.ruler != nil].filter { $0 }
            #expect(open.count == 1, "\(key): \(String(describing: map.card))")
        }
        _ = Fixture.keys(&state, .escape)
        #expect(state.map?.card == nil && state.map != nil)
    }

    @Test func theHelpNamesTheRulerAndItsKeyCanBeChanged() throws {
        #expect(HelpDocument.lines(width: 120).map { $0.map(\.text).joined() }.contains { $0.contains("R") && $0.contains("Ruler") })
        let settings = try Settings(parsing: "key.ruler = M\nunits = imperial\n")
        #expect(settings.units == .imperial && settings.keys[.ruler] == "M")
    }
}
