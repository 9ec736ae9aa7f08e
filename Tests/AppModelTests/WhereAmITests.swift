import Foundation
import MapRender
import MapbookCore
import Testing
@testable import AppModel
import Geometry
import ArcGISModel
import Location
import UserFiles

/// `f` on the map: watching where this device is starts, the view centres on the position, again
/// follows it as it moves; a pan by hand stops following; the states the receiver is in are kept
/// as themselves.
@Suite("Where am I: the position on the map")
struct WhereAmITests {
    static let barHarbor = GeoPoint(longitude: -68.2039, latitude: 44.3876)

    static func fix(_ point: GeoPoint, accuracy: Double = 6) -> LocationStatus {
        .fix(GPSFix(dimension: .threeD, position: point, accuracy: accuracy), Satellites(used: 8, visible: 12))
    }

    static func centre(_ state: AppState) -> GeoPoint { state.map!.viewport.center.geographic }

    static func near(_ a: GeoPoint, _ b: GeoPoint, within meters: Double = 30) -> Bool { Geodesy.distance(a, b) < meters }

    @Test func theFirstKeyStartsWatchingAndTheViewFollowsTheFirstPosition() {
        var state = IdentifyTests.openMap()
        let effects = Fixture.keys(&state, .character("f"))
        #expect(effects == [.map(.watchLocation(state.preferences.location))])
        #expect(state.places.here == .searching && state.map?.followsLocation == true)
        #expect(state.message?.contains("gpsd at 127.0.0.1:2947") == true, "\(state.message ?? "")")
        // A second `f` while searching asks nothing more and says why there is no position.
        _ = App.update(&state, .map(.location(.noFix(Satellites(used: 2, visible: 9)))))
        #expect(Fixture.keys(&state, .character("f")).isEmpty)
        #expect(state.message == "No position yet: no fix, 2 of 9 satellites.")
        let draws = App.update(&state, .map(.location(Self.fix(Self.barHarbor))))
        #expect(Self.near(Self.centre(state), Self.barHarbor) && draws.contains { if case .map(.drawMap) = $0 { true } else { false } })
    }

    @Test func fCentresThenFollowsAndAPanByHandStopsFollowing() {
        var state = IdentifyTests.openMap()
        state.places.here = Self.fix(Self.barHarbor)
        #expect(!Self.near(Self.centre(state), Self.barHarbor, within: 1_000))
        _ = Fixture.keys(&state, .character("f"))
        #expect(Self.near(Self.centre(state), Self.barHarbor) && state.map?.followsLocation == false)
        #expect(state.message?.hasPrefix("Centred on this device's position (3D fix ±6.0 m, 8 of 12 satellites)") == true, "\(state.message ?? "")")
        _ = Fixture.keys(&state, .character("f"))
        #expect(state.map?.followsLocation == true && state.message == "Following this device's position; a pan stops following.")
        // The walk goes on: the view goes with it; jitter within a cell moves nothing.
        let along = Geodesy.destination(from: Self.barHarbor, bearing: 45, meters: 2_000)
        _ = App.update(&state, .map(.location(Self.fix(along))))
        #expect(Self.near(Self.centre(state), along))
        let before = state.map!.viewport
        let jitter = Geodesy.destination(from: along, bearing: 90, meters: 0.2)
        #expect(App.update(&state, .map(.location(Self.fix(jitter)))).isEmpty && state.map!.viewport == before)
        // A zoom keeps following; a pan stops it, and the view then stays where it was panned.
        _ = Fixture.keys(&state, .character("+"))
        #expect(state.map?.followsLocation == true)
        _ = Fixture.keys(&state, .left)
        #expect(state.map?.followsLocation == false)
        let panned = Self.centre(state)
        _ = App.update(&state, .map(.location(Self.fix(Geodesy.destination(from: along, bearing: 0, meters: 3_000)))))
        #expect(Self.centre(state) == panned)
        // Home stops it too; `f` while following stops it.
        _ = Fixture.keys(&state, .character("f"), .character("f"))
        #expect(state.map?.followsLocation == true)
        _ = Fixture.keys(&state, .character("f"))
        #expect(state.map?.followsLocation == false && state.message == "Stopped following this device's position.")
        _ = Fixture.keys(&state, .character("f"), .character("f"), .character("0"))
        #expect(state.map?.followsLocation == false)
    }

    /// The walker goes on between the two presses: the second still follows (and centres on
    /// where the walker is now); after a pan it centres again first.
    @Test func theSecondKeyFollowsThoughThePositionMovedBetweenThePresses() {
        var state = IdentifyTests.openMap()
        state.places.here = Self.fix(Self.barHarbor)
        _ = Fixture.keys(&state, .character("f"), .character("+"), .character("+"), .character("+"))
        let onward = Geodesy.destination(from: Self.barHarbor, bearing: 45, meters: 500)
        state.places.here = Self.fix(onward)
        _ = Fixture.keys(&state, .character("f"))
        #expect(state.map?.followsLocation == true && state.message == "Following this device's position; a pan stops following.")
        #expect(Self.near(Self.centre(state), onward))
        _ = Fixture.keys(&state, .left, .character("f"))
        #expect(state.map?.followsLocation == false && state.message?.hasPrefix("Centred on") == true, "\(state.message ?? "")")
        state.places.here = Self.fix(Self.barHarbor)
        _ = Fixture.keys(&state, .left, .character("f"))
        #expect(state.map?.followsLocation == false && state.message?.hasPrefix("Centred on") == true, "\(state.message ?? "")")
    }

    /// A stale fix is still shown (where the device was), gpsd's sentence is sanitized, and the
    /// config's source is watched from the start.
    @Test func statesAreKeptAsThemselvesAndWatchingStartsWhenTheConfigNamesASource() throws {
        var state = IdentifyTests.openMap()
        _ = App.update(&state, .map(.location(.unavailable("gpsd at \u{1B}[31mbad cannot be reached"))))
        #expect(state.places.here?.summary.contains("\u{1B}") == false && state.places.here?.summary.contains("cannot be reached") == true)
        let gpsFix = GPSFix(dimension: .twoD, position: Self.barHarbor, accuracy: 40)
        _ = App.update(&state, .map(.location(.stale(gpsFix, seconds: 7))))
        #expect(state.places.here?.position == Self.barHarbor && state.places.here?.isCurrent == false)

        var fresh = AppState(portalHost: "example.com", webMapID: .exploreMaine, phase: .loading)
        var settings = Settings()
        settings.location = Self.barHarbor
        #expect(fresh.preferences.takeLocation(from: settings, environment: [:]) == nil)
        #expect(fresh.preferences.watchesLocationAtStart && fresh.preferences.location == .fixed(Self.barHarbor))
        #expect(App.update(&fresh, .started).contains(.map(.watchLocation(.fixed(Self.barHarbor)))))
        var quiet = AppState(portalHost: "example.com", webMapID: .exploreMaine, phase: .loading)
        #expect(quiet.preferences.takeLocation(from: Settings(), environment: [:]) == nil && !quiet.preferences.watchesLocationAtStart)
        #expect(!App.update(&quiet, .started).contains { if case .map(.watchLocation) = $0 { true } else { false } })
        #expect(quiet.preferences.takeLocation(from: Settings(), environment: ["GPSD_HOST": "not an address:x"]) != nil)
    }

    /// `T`: a track starts (and watching with it), each fix the recorder keeps is drawn and
    /// written, `T` again ends it with its figures; one with no point is not kept.
    @Test func tRecordsATrackFromTheFixesAndEndsIt() {
        var state = IdentifyTests.openMap()
        state.preferences.units = .metric
        #expect(Fixture.keys(&state, .character("T")) == [.map(.startTrack), .map(.watchLocation(state.preferences.location))])
        #expect(state.places.recording != nil && state.message == "Recording a track; T again ends it.")
        _ = App.update(&state, .map(.trackStarted(id: "20260601-140000")))
        let t0 = Date(timeIntervalSince1970: 1_780_000_000)
        var written: [Effect] = []
        for second in 0..<5 {
            let point = Geodesy.destination(from: Self.barHarbor, bearing: 45, meters: Double(second) * 20)
            let fix = GPSFix(dimension: .threeD, position: point, accuracy: 4, time: t0.addingTimeInterval(Double(second)))
            written += App.update(&state, .map(.location(.fix(fix, nil))))
            // The same fix again (a second report of the same second) adds nothing.
            written += App.update(&state, .map(.location(.fix(fix, Satellites(used: 7, visible: 9)))))
        }
        #expect(written.count == 5 && state.places.recording?.drawn.count == 5)
        if case .map(.appendToTrack(let points))? = written.last { #expect(points.first?.accuracy == 4) } else { Issue.record("\(written)") }
        #expect(Fixture.keys(&state, .character("T")) == [.map(.endTrack(keep: true))])
        #expect(state.places.recording == nil && state.message == "Track kept: 5 points, 80 m (mapbook tracks export 20260601-140000).",
                "\(state.message ?? "")")
        // Nothing recorded: nothing kept.
        _ = Fixture.keys(&state, .character("T"))
        #expect(Fixture.keys(&state, .character("T")) == [.map(.endTrack(keep: false))] && state.message == "No point was recorded; no track was kept.")
        // A track that cannot be written ends, saying why.
        _ = Fixture.keys(&state, .character("T"))
        _ = App.update(&state, .map(.trackNotKept("The track could not be written (No space left on device); the points before are kept.")))
        #expect(state.places.recording == nil && state.message?.contains("No space left on device") == true)
    }

    /// The position stands in wherever a place is asked: directions start from it (Enter alone),
    /// the ruler measures from it, a pin and what's here take it while the view follows it, the
    /// areas can be ordered nearest to it first.
    @Test func thePositionIsUsedWhereAPlaceIsAsked() {
        var state = IdentifyTests.openMap()
        let walker = Geodesy.destination(from: Self.barHarbor, bearing: 90, meters: 300)
        _ = App.update(&state, .map(.location(Self.fix(walker))))
        #expect(state.position == MapPin(point: walker, label: "your position"))
        // Directions to the centre: Enter alone starts from the position.
        _ = Fixture.keys(&state, .character("t"))
        guard case .search(let search)? = state.overlay, case .routeStop(_, true, let from?) = search.purpose else { Issue.record("no search"); return }
        #expect(from == RouteStop(name: "your position", point: walker) && search.purpose.fallbackLine == "Type a place, or Enter: from your position.")
        _ = Fixture.keys(&state, .escape)
        // The ruler starts at the position once it is in view (the centre is the live end).
        _ = Fixture.keys(&state, .character("f"))
        _ = Fixture.keys(&state, .left, .character("R"))
        #expect(state.map?.ruler?.points == [walker])
        _ = Fixture.keys(&state, .escape)
        // Following: a pin goes at the position itself, not at the nearest cell's centre.
        _ = Fixture.keys(&state, .character("f"), .character("f"))
        #expect(state.map?.followsLocation == true)
        let moved = Geodesy.destination(from: walker, bearing: 90, meters: 1)
        _ = App.update(&state, .map(.location(Self.fix(moved))))
        _ = Fixture.keys(&state, .character("p"))
        guard case .pinForm(let form)? = state.overlay else { Issue.record("no pin form"); return }
        #expect(form.point == moved && form.accuracy == 6, "the fix's accuracy goes with the pin")
        _ = Fixture.keys(&state, .escape)
        // Back on the list: `o` orders the areas nearest to the position first, then the place searched last.
        _ = Fixture.keys(&state, .escape, .escape)
        state.places.recent = [MapPin(point: GeoPoint(longitude: -70.25, latitude: 43.66), label: "Portland, ME, USA")]
        _ = Fixture.keys(&state, .character("o"))
        #expect(state.list.order == .nearest(MapPin(point: moved, label: "your position")) && state.message == "Areas nearest to your position first.")
        _ = Fixture.keys(&state, .character("o"))
        #expect(state.list.order == .nearest(state.places.recent[0]))
        _ = Fixture.keys(&state, .character("o"))
        #expect(state.list.order == .name)
    }

    /// `g`: a card that says how far and which way the place is from the position, worked out
    /// again as the position moves; here once within the fix's accuracy; without a position, why.
    @Test func theGoToCardFollowsThePosition() {
        var state = IdentifyTests.openMap()
        state.preferences.units = .metric
        let target = state.map!.viewport.center.geographic
        let effects = Fixture.keys(&state, .character("g"))
        #expect(effects == [.map(.watchLocation(state.preferences.location))])
        guard let place = state.map?.goTo else { Issue.record("no card"); return }
        #expect(place.point == target && state.cardFocus == .goTo)
        #expect(place.goToLines(from: state.places.here, units: .metric) == ["No position: looking for a receiver."])
        let south = Geodesy.destination(from: target, bearing: 180, meters: 2_400)
        #expect(place.goToLines(from: Self.fix(south), units: .metric) == ["2.4 km, bearing 0° N", "From your position: 3D fix ±6.0 m, 8 of 12 satellites."])
        let west = Geodesy.destination(from: target, bearing: 270, meters: 800)
        #expect(place.goToLines(from: Self.fix(west), units: .metric).first == "800 m, bearing 90° E")
        #expect(place.goToLines(from: Self.fix(Geodesy.destination(from: target, bearing: 0, meters: 4)), units: .metric).first == "Here, within 10 m.")
        if case .fix(let gps, _) = Self.fix(west) {
            #expect(place.goToLines(from: .stale(gps, seconds: 9), units: .metric).last == "From your position: last fix 9 s ago, where it was.")
        }
        // `g` again closes it; Esc too.
        _ = Fixture.keys(&state, .character("g"))
        #expect(state.map?.card == nil)
        _ = Fixture.keys(&state, .character("g"), .escape)
        #expect(state.map?.card == nil)
    }

    @Test func destinationIsTheInverseOfDistanceAndBearing() {
        for (bearing, meters) in [(0.0, 100.0), (45, 2_000), (200, 50_000), (359, 1)] {
            let there = Geodesy.destination(from: Self.barHarbor, bearing: bearing, meters: meters)
            #expect(abs(Geodesy.distance(Self.barHarbor, there) - meters) < meters * 1e-6 + 1e-6)
            #expect(abs(((Geodesy.bearing(from: Self.barHarbor, to: there) - bearing + 540).truncatingRemainder(dividingBy: 360)) - 180) < 1e-3)
        }
    }
}
