import MapbookAssets
import AppModel
import ArcGISPortal
import Foundation
import MapbookCore
import Testing
import Geometry
import Places
import ArcGISModel

/// `s`: a search line whose every keystroke asks the geocoder again (an older answer is dropped);
/// Enter opens the map on the place, pinned, from a downloaded area that holds it when there is one.
@Suite("update: searching for a place")
struct PlaceSearchTests {
    static let barHarbor = GeocodeCandidate(label: "Bar Harbor, ME, USA", location: GeoPoint(longitude: -68.2, latitude: 44.39), score: 100,
                                            extent: GeoExtent(xmin: -68.25, ymin: 44.35, xmax: -68.15, ymax: 44.43), type: "City")

    func typed(_ state: inout AppState, _ text: String) -> [Effect] {
        text.flatMap { Fixture.keys(&state, .character($0)) }
    }

    var search: (AppState) -> PlaceSearch? = { state in
        if case .search(let search)? = state.overlay { return search }
        return nil
    }

    @Test func typingAsksForSuggestionsAndOnlyTheLatestAnswerCounts() throws {
        var state = Fixture.loaded()
        #expect(Fixture.keys(&state, .character("s")).isEmpty)
        #expect(state.keyContext == .search)
        #expect(typed(&state, "b").isEmpty, "one character asks nothing")
        let effects = typed(&state, "ar")
        guard case .search(.suggestPlaces("bar", let request, let near?, true))? = effects.last else { Issue.record("\(effects)"); return }
        #expect(abs(near.longitude + 69) < 3, "ranked from the web map's centre")
        // Each keystroke's request replaces the one before, which the runtime is told to stop: one
        // is waited for.
        guard case .search(.suggestPlaces("ba", let before, _, _))? = effects.first else { Issue.record("\(effects)"); return }
        #expect(effects.dropFirst().first == .cancel(before))
        #expect(state.requests.pending == [request])
        // An answer to an older keystroke is dropped; the latest is shown, sanitized.
        _ = App.update(&state, .search(.placeSuggestions(request: RequestID(rawValue: request.rawValue - 1),
                                                 .success([GeocodeSuggestion(text: "Old", magicKey: nil)]), offline: false)))
        #expect(search(state)?.suggestions.isEmpty == true)
        _ = App.update(&state, .search(.placeSuggestions(request: request, .success([
            GeocodeSuggestion(text: "Bar Harbor, ME, USA", magicKey: "p1"), GeocodeSuggestion(text: "Bar\u{1B}[2J Mills, ME, USA", magicKey: "p2")]),
            offline: false)))
        #expect(search(state)?.suggestions.map(\.text) == ["Bar Harbor, ME, USA", "Bar Mills, ME, USA"])
        #expect(state.requests.isEmpty)
        // ↓ chooses the second; Enter finds it by its key.
        let picked = Fixture.keys(&state, .down, .enter)
        guard case .search(.findPlaces("Bar Mills, ME, USA", "p2", let find, _, true))? = picked.last else { Issue.record("\(picked)"); return }
        #expect(state.requests.pending == [find] && !state.isSettled, "a script waits for the place")
        // q is a letter here, not quit.
        _ = Fixture.keys(&state, .escape, .character("s"), .character("q"))
        #expect(!state.handoff.isQuitting && search(state)?.text == "q")
    }

    @Test func aPlaceOpensTheMapPinnedFromTheAreaOnThisDevice() throws {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        _ = Fixture.keys(&state, .character("s"))
        _ = typed(&state, "bar harbor")
        let effects = Fixture.keys(&state, .enter)
        guard case .search(.findPlaces(_, nil, let request, _, _))? = effects.last else { Issue.record("\(effects)"); return }
        let opened = App.update(&state, .search(.placesFound(request: request, .success([Self.barHarbor]))))
        let map = try #require(state.map)
        #expect(state.overlay == nil)
        #expect(map.pin == MapPin(point: Self.barHarbor.location, label: "Bar Harbor, ME, USA"))
        #expect(map.homeExtent == Self.barHarbor.extent)
        guard case .map(.openMap(_, .package(let area, _)))? = opened.last else { Issue.record("\(opened)"); return }
        #expect(area == Fixture.acadia, "Acadia is on this device and holds the place: its package draws it")
        #expect(state.message == "Bar Harbor, ME, USA — in Acadia · on this device")
    }

    /// A feature of the open map is shown on it (no other map opens); on a map opened from a file,
    /// any place found is.
    @Test func aFeatureOfTheOpenMapIsShownThere() throws {
        var state = AppState.standaloneMap(title: "usa.geodatabase", sourceName: "usa.geodatabase", home: nil)
        _ = App.update(&state, .started)
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        _ = App.update(&state, .map(.mapOpened(session: 1, MapSourceSummary(layerNames: [], extent: nil))))
        _ = Fixture.keys(&state, .character("s"))
        #expect(state.keyContext == .search, "a map opened from a file searches too")
        _ = typed(&state, "boston")
        guard case .search(.findPlaces(_, _, let request, _, _))? = Fixture.keys(&state, .enter).last else { Issue.record("no request"); return }
        let boston = GeocodeCandidate(label: "Boston", location: GeoPoint(longitude: -71.09, latitude: 42.32), score: 100, extent: nil,
                                      type: "US-Major-Cities, a layer on this device", isOnOpenMap: true)
        let effects = App.update(&state, .search(.placesFound(request: request, .success([boston]))))
        let map = try #require(state.map)
        #expect(map.session == 1 && !effects.contains { if case .map(.openMap) = $0 { true } else { false } }, "\(effects)")
        #expect(map.pin == MapPin(point: boston.location, label: "Boston"))
        #expect(abs(map.viewport.center.geographic.longitude - -71.09) < 0.01 && abs(map.viewport.center.geographic.latitude - 42.32) < 0.01)
        #expect(state.message == "Boston — from US-Major-Cities, a layer on this device.")
    }

    @Test func fromThePlaceDDownloadsTheAreaThatHoldsIt() throws {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("s"))
        _ = typed(&state, "bar harbor")
        guard case .search(.findPlaces(_, _, let request, _, _))? = Fixture.keys(&state, .enter).last else { Issue.record("no request"); return }
        let opened = App.update(&state, .search(.placesFound(request: request, .success([Self.barHarbor]))))
        guard case .map(.openMap(_, .basemap))? = opened.last else { Issue.record("\(opened)"); return }
        #expect(state.message == "Bar Harbor, ME, USA — in Acadia")
        let download = Fixture.keys(&state, .character("d"))
        #expect(download.contains { if case .downloads(.download(let area)) = $0 { area.item.id == Fixture.acadia } else { false } })
    }

    @Test func nothingFoundOrAGeocoderThatFailsStaysInTheSearchAndSaysSo() {
        var state = Fixture.loaded()
        _ = Fixture.keys(&state, .character("s"))
        _ = typed(&state, "atlantis")
        guard case .search(.findPlaces(_, _, let request, _, _))? = Fixture.keys(&state, .enter).last else { Issue.record("no request"); return }
        _ = App.update(&state, .search(.placesFound(request: request, .success([]))))
        #expect(search(state)?.status == .nothingFound)
        _ = App.update(&state, .search(.placesFound(request: request, .failure(LoadFailure(sentence: "p answered HTTP 503.", network: .online, host: "p")))))
        #expect(search(state)?.status == .failed("p answered HTTP 503."))
    }

    @Test func offlineTheSearchAsksTheNamesOnThisDevice() {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        _ = App.update(&state, .catalog(.network(.offline)))
        _ = Fixture.keys(&state, .character("s"))
        guard case .search(.suggestPlaces("bar", let request, _, false))? = typed(&state, "bar").last else { Issue.record("asked online"); return }
        _ = App.update(&state, .search(.placeSuggestions(request: request, .success([GeocodeSuggestion(text: "Bar Harbor", magicKey: nil)]), offline: true)))
        #expect(search(state)?.offline == true && search(state)?.suggestions.count == 1)
    }
}

/// `w`: what is at the map's centre — the geocoder's address online, the nearest named place offline.
@Suite("update: what's here")
struct WhatsHereTests {
    @Test func wAsksForTheCentreAndTheCardShowsTheAnswerAndTheAreas() throws {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .character("m"))
        let effects = Fixture.keys(&state, .character("w"))
        guard case .search(.describePlace(let point, let request, let online))? = effects.first else { Issue.record("\(effects)"); return }
        #expect(online)
        let here = try #require(state.map?.whatsHere)
        #expect(here.point == point && here.answer == nil && here.areas == ["Acadia · on this device"])
        _ = App.update(&state, .search(.placeDescribed(request: RequestID(rawValue: request.rawValue - 1), .address("Old"))))
        #expect(state.map?.whatsHere?.answer == nil, "an older answer is dropped")
        _ = App.update(&state, .search(.placeDescribed(request: request, .address("Bar Harbor, ME, USA\u{1B}[31m"))))
        #expect(state.map?.whatsHere?.answer == .address("Bar Harbor, ME, USA"))
        _ = Fixture.keys(&state, .escape)
        #expect(state.map != nil && state.map?.whatsHere == nil, "Esc closes the card first, then leaves the map")
    }

    /// `Y`: the centre as `LON,LAT`, as commands read a point back, to the clipboard and said.
    @Test func yCopiesTheCentresPositionAsCommandsReadIt() throws {
        var state = IdentifyTests.openMap()
        let centre = try #require(state.map?.viewport.center.geographic)
        let effects = Fixture.keys(&state, .character("Y"))
        let position = String(format: "%.5f,%.5f", centre.longitude, centre.latitude)
        #expect(effects == [.copy(position)])
        #expect(state.message == "Copied \(position) (LON,LAT) to the clipboard.")
        #expect(GeoPoint(parsing: position).map { abs($0.longitude - centre.longitude) < 1e-5 && abs($0.latitude - centre.latitude) < 1e-5 } == true)
        // Away from the map there is no position to copy.
        var list = Fixture.loaded()
        #expect(Fixture.keys(&list, .character("Y")).isEmpty)
    }

    /// `E`: the box the view shows as `W,S,E,N`, read back by the rule `--extent` and `--bbox` use;
    /// zoomed in, a smaller box inside the first; the config can give it another key.
    @Test func eCopiesTheViewsExtentAsCommandsReadABox() throws {
        var state = IdentifyTests.openMap()
        let centre = try #require(state.map?.viewport.center.geographic)
        guard case .copy(let text)? = Fixture.keys(&state, .character("E")).first else { Issue.record("nothing copied"); return }
        #expect(state.message == "Copied \(text) (W,S,E,N) to the clipboard.")
        let box = try #require(GeoExtent(parsing: text))
        #expect(box.xmin < centre.longitude && centre.longitude < box.xmax && box.ymin < centre.latitude && centre.latitude < box.ymax)
        _ = Fixture.keys(&state, .character("+"))
        guard case .copy(let closer)? = Fixture.keys(&state, .character("E")).first else { Issue.record("nothing copied"); return }
        let inner = try #require(GeoExtent(parsing: closer))
        #expect(inner.xmin > box.xmin && inner.xmax < box.xmax && inner.ymin > box.ymin && inner.ymax < box.ymax)
        #expect((inner.xmax - inner.xmin) < (box.xmax - box.xmin) * 0.6, "one level closer halves the width")
        var list = Fixture.loaded()
        #expect(Fixture.keys(&list, .character("E")).isEmpty, "away from the map there is no view to copy")
        let rebound = KeyMap.bindings(overriding: [.copyExtent: "Z"])
        #expect(KeyMap.intent(for: .character("Z"), in: .map, bindings: rebound) == .map(.copyExtent))
    }

    @Test func offlineItAsksTheBundledPlaces() {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .character("m"))
        _ = App.update(&state, .catalog(.network(.offline)))
        guard case .search(.describePlace(_, _, false))? = Fixture.keys(&state, .character("w")).first else { Issue.record("asked online"); return }
    }

    @Test func theNearestNamedPlaceWithItsDistanceAndDirection() throws {
        let gazetteer = Gazetteer(places: [PlaceName(name: "Bar Harbor", point: GeoPoint(longitude: -68.2039, latitude: 44.3876), rank: 8),
                                           PlaceName(name: "Bangor", point: GeoPoint(longitude: -68.7778, latitude: 44.8012), rank: 7)])
        let near = try #require(gazetteer.nearest(to: GeoPoint(longitude: -68.25, latitude: 44.35)))
        // The point lies south-west of Bar Harbor, and is said so.
        #expect(near.place.name == "Bar Harbor" && near.direction == "south-west")
        #expect(abs(near.meters - 5_482) < 100, "\(near.meters)")
        #expect(Gazetteer.sentence(near) == "5.6 km south-west of Bar Harbor")
        #expect(Gazetteer.direction(of: GeoPoint(longitude: 0, latitude: -1), from: GeoPoint(longitude: 0, latitude: 0)) == "south")
        #expect(Gazetteer(places: []).nearest(to: GeoPoint(longitude: 0, latitude: 0)) == nil)
    }
}

/// The world gazetteer that ships with mapbook: GeoNames' places of 15,000 people or more, read on
/// first use, searched with typos forgiven but never with scattered letters.
@Suite("the world gazetteer")
struct WorldGazetteerTests {
    static let places = MapbookAssets.placeNames()
    static let index = PlaceIndex(places: places)

    @Test func itHoldsTheWorldsTownsWithTheirRegion() throws {
        #expect(Self.places.count > 30_000)
        let austin = try #require(Self.index.search("Austin", limit: 5).first)
        #expect(austin.title == "Austin, Texas, United States" && austin.source == .gazetteer)
        #expect(abs(austin.point.longitude - -97.74) < 0.05 && abs(austin.point.latitude - 30.27) < 0.05)
        #expect(Self.index.search("Dallas", limit: 1).first?.title == "Dallas, Texas, United States")
        #expect(Self.index.search("Hamburg", limit: 1).first?.title == "Hamburg, Germany")
        #expect(Self.index.search("Bangor", near: GeoPoint(longitude: -68.8, latitude: 44.8), limit: 1).first?.title == "Bangor, Maine, United States")
    }

    @Test func aTypoFindsTheNameAndScatteredLettersFindNothing() {
        #expect(Self.index.search("Hambrug", limit: 1).first?.name == "Hamburg")
        #expect(Self.index.search("Austn", limit: 3).contains { $0.title == "Austin, Texas, United States" })
        #expect(Self.index.search("xqzv", limit: 5).isEmpty)
        #expect(Self.index.search("hmbg", limit: 5).isEmpty, "letters in order alone no longer match")
    }

    @Test func typoDistanceCountsSwapsAsOneAndMeasuresToANamesStart() {
        func within(_ allowed: Int, _ typed: String, _ name: String) -> Bool {
            TypoDistance.within(allowed, Array(typed.unicodeScalars), Array(name.unicodeScalars))
        }
        #expect(within(1, "hmaburg", "hamburg"), "two neighbours swapped: one typo")
        #expect(within(1, "hambr", "hamburg"), "a start of the name")
        #expect(!within(1, "hmbrg", "hamburg"))
        #expect(within(2, "hmbrg", "hamburg"))
        #expect(!within(1, "abc", "xyz") && !within(2, "austin", "boston"))
        #expect(TypoDistance.allowed(forLength: 4) == 1 && TypoDistance.allowed(forLength: 7) == 2)
    }

    @Test func theNearestPlaceToAustinIsAustin() throws {
        let near = try #require(Gazetteer(places: Self.places).nearest(to: GeoPoint(longitude: -97.743, latitude: 30.266)))
        #expect(near.place.title == "Austin, Texas, United States", "\(Gazetteer.sentence(near))")
        let denver = try #require(Gazetteer(places: Self.places.filter { $0.name == "Denver" }).nearest(to: GeoPoint(longitude: -114.5, latitude: 39.7)))
        #expect(Gazetteer.sentence(denver).contains("km west of Denver, Colorado, United States"))
    }

    @Test func aDamagedGazetteerIsRefusedNotMisread() {
        #expect(throws: WorldGazetteer.ReadError.notAGazetteer) { try WorldGazetteer.decode(Data("MBGF".utf8)) }
        #expect(throws: WorldGazetteer.ReadError.truncated) { try WorldGazetteer.decode(Data([0x4D, 0x42, 0x50, 0x4C, 1, 0xFF, 0xFF, 0xFF, 0x7F])) }
    }
}

/// `o` orders the areas: the portal's, nearest to the place searched last, by name, by size; `O`
/// puts the ones on this device first. The selection stays on its area.
@Suite("update: the order of the areas")
struct AreaOrderTests {
    func titles(_ state: AppState) -> [String] { state.rows.dropFirst().map { state.title(of: $0) } }

    @Test func oCyclesTheOrdersAndOPutsDownloadedFirst() {
        var state = Fixture.loaded(downloaded: [Fixture.bangor])
        #expect(titles(state) == ["Acadia", "Greater Portland", "Bangor"])
        Fixture.select(&state, "Greater Portland")
        _ = Fixture.keys(&state, .character("o"))
        #expect(state.message == "Areas by name.", "no place searched yet: nearest is skipped")
        #expect(titles(state) == ["Acadia", "Bangor", "Greater Portland"])
        #expect(state.title(of: state.selectedRow!) == "Greater Portland", "the selection follows its area")
        _ = Fixture.keys(&state, .character("o"))
        #expect(state.list.order == .size)
        _ = Fixture.keys(&state, .character("o"), .character("O"))
        #expect(state.list.order == .portal && titles(state) == ["Bangor", "Acadia", "Greater Portland"])
        #expect(state.message == "Areas on this device first.")
    }

    @Test func nearestFirstMeasuresFromThePlaceSearchedLast() {
        var state = Fixture.loaded()
        state.places.recent = [MapPin(point: GeoPoint(longitude: -70.25, latitude: 43.66), label: "Portland, ME, USA")]
        _ = Fixture.keys(&state, .character("o"))
        #expect(state.message == "Areas nearest to Portland, ME, USA first.")
        #expect(titles(state) == ["Greater Portland", "Acadia", "Bangor"])
        #expect(state.catalog.areas[1].distance(from: state.lastPlace!.point) == 0, "inside the area: no distance")
        #expect((state.catalog.areas[0].distance(from: state.lastPlace!.point) ?? 0) > 100_000)
    }
}

@Suite struct ExtentContainsTests {
    @Test func aPointIsInAnExtentEdgesIncludedAndNeverInAnInvertedOne() {
        let acadia = GeoExtent(xmin: -68.5, ymin: 44.2, xmax: -68.0, ymax: 44.5)
        #expect(acadia.contains(GeoPoint(longitude: -68.2, latitude: 44.39)) && acadia.contains(GeoPoint(longitude: -68.5, latitude: 44.2)))
        #expect(!acadia.contains(GeoPoint(longitude: -70, latitude: 44.39)))
        // A portal's extent written backwards: no match, and no trap (a closed range from it would).
        #expect(!GeoExtent(xmin: -68.0, ymin: 44.5, xmax: -68.5, ymax: 44.2).contains(GeoPoint(longitude: -68.2, latitude: 44.39)))
    }
}
