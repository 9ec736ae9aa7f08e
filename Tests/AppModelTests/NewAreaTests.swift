import AppModel
import ArcGISModel
import Foundation
import Geometry
import LibraryModel
import MapbookCore
import Testing

/// `N` on the map: the card for an area of your own, its estimate, making it, and its row while the
/// servers prepare it, until it downloads like any other.
@Suite("update: a new map area of your own")
struct NewAreaTests {
    static func card(_ state: AppState) -> AreaForm? {
        if case .newArea(let form)? = state.overlay { return form }
        return nil
    }

    static let estimate = AreaEstimate(layers: [.init(title: "Explore Maine Basemap", measure: "27 tiles", bytes: 2_030_408),
                                                .init(title: "Counties, Places", measure: "3 features", bytes: 73_800)],
                                       refused: ["Maine boundaries: its service does not allow exporting tiles"])

    @Test func nOpensTheCardForThePartOfTheViewAndAsksItsEstimate() throws {
        var state = IdentifyTests.openMap()
        _ = App.update(&state, .map(.featureLayersOpened(session: 1, FeatureLayersSummary(titles: ["Places"]))))
        #expect(state.isSettled)
        let effects = Fixture.keys(&state, .character("N"))
        let form = try #require(Self.card(state))
        #expect(form.name == "Area 1" && form.focus == .name && form.estimate == nil)
        #expect(state.requests.pending == [form.request] && !state.isSettled, "a script waits for the estimate")
        #expect(effects == [.newArea(.estimateArea(request: form.request, form.order))])
        let view = state.map!.viewport.geographicExtent(columns: state.layout!.mapRect.width, rows: state.layout!.mapRect.height)
        #expect(view.contains(form.extent) && form.extent.area < view.area * 0.7 && form.extent.area > view.area * 0.6, "a tenth in from each side")
        #expect(state.keyContext == .form)

        // ← → change the level: a new estimate is asked, and an answer to the old one is dropped.
        let finer = Fixture.keys(&state, .right)
        let asked = try #require(Self.card(state))
        #expect(asked.detail.level == form.detail.level + 1 || asked.detail.level == form.detail.level + 2)
        #expect(finer == [.newArea(.estimateArea(request: asked.request, asked.order))] && asked.request > form.request)
        _ = App.update(&state, .newArea(.areaEstimated(request: form.request, Self.estimate)))
        #expect(Self.card(state)?.estimate == nil, "a late answer for another level is not shown")
        #expect(state.requests.pending == [asked.request], "the late answer was still an answer")
        _ = App.update(&state, .newArea(.areaEstimated(request: asked.request, Self.estimate)))
        #expect(Self.card(state)?.estimate?.bytes == 2_104_208)
        #expect(state.isSettled)
    }

    @Test func enterMakesItUnderAFreshNameAndTheRowFollowsTheServersThenTheDownload() throws {
        var state = IdentifyTests.openMap()
        _ = Fixture.keys(&state, .character("N"))
        for _ in 0..<6 { _ = Fixture.keys(&state, .backspace) }
        _ = Fixture.keys(&state, .enter)
        #expect(Self.card(state)?.problem == "An area needs a name.")
        for character in "acadia" { _ = Fixture.keys(&state, .character(character)) }
        _ = Fixture.keys(&state, .enter)
        #expect(Self.card(state)?.problem == "An area of this web map is already called acadia.")
        for _ in 0..<6 { _ = Fixture.keys(&state, .backspace) }
        for character in "Camden harbor" { _ = Fixture.keys(&state, .character(character)) }
        _ = Fixture.keys(&state, .tab)
        #expect(Self.card(state)?.focus == .detail)
        while Self.card(state)!.detail != .street {
            _ = Fixture.keys(&state, Self.card(state)!.detail.level > 16 ? .left : .right)
        }
        let order = try #require(Self.card(state)).order
        let made = Fixture.keys(&state, .enter)
        #expect(made == [.newArea(.makeArea(order))] && order.name == "Camden harbor" && order.detail == .street)
        #expect(state.overlay == nil && state.notice?.sentence.hasPrefix("Making Camden harbor") == true)

        let spec = OnDemandSpec(name: order.name, extent: order.extent, maxLevel: 16, detail: .street, createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        let id = ItemID("0123456789abcdef0123456789abcdef")!
        let listed = MapArea.onDemand(id: id, spec: spec, packages: [], exported: spec.createdAt)
        _ = App.update(&state, .newArea(.areaPreparing(listed, label: "Preparing on the server 40 %")))
        let index = try #require(state.catalog.areas.firstIndex { $0.item.id == id })
        #expect(StatusText.line(.area(index), state: state).plainText == "Preparing on the server 40 % · yours")
        let layer = OnDemandLayer(title: "Explore Maine Basemap", kind: .vectorTiles, serviceURL: "https://h/VectorTileServer")
        let ready = MapArea.onDemand(id: id, spec: spec, packages: [(ItemID("fedcba9876543210fedcba9876543210")!, layer, URL(string: "https://h/x.vtpk")!, 100)],
                                     exported: spec.createdAt)
        let download = App.update(&state, .newArea(.areaPrepared(ready)))
        #expect(download == [.downloads(.download(state.catalog.areas[index]))] && state.catalog.areas[index].packages.count == 1)
        #expect(StatusText.line(.area(index), state: state).plainText.hasPrefix("Queued"))
    }

    @Test func anAreaNotMadeIsSaidAndItsRowGoes() {
        var state = Fixture.loaded()
        let spec = OnDemandSpec(name: "Coast", extent: GeoExtent(xmin: -70, ymin: 43, xmax: -69, ymax: 44), maxLevel: 16, detail: .street,
                                createdAt: Date(timeIntervalSince1970: 0))
        let id = ItemID("0123456789abcdef0123456789abcdef")!
        _ = App.update(&state, .newArea(.areaPreparing(MapArea.onDemand(id: id, spec: spec, packages: [], exported: spec.createdAt), label: "Waiting for the server")))
        #expect(state.catalog.areas.contains { $0.item.id == id })
        _ = App.update(&state, .newArea(.areaNotMade(id, sentence: "Coast cannot be made: Explore Maine Basemap failed on the server: no disk\u{1B}[2J.")))
        #expect(!state.catalog.areas.contains { $0.item.id == id } && state.library.preparing.isEmpty)
        #expect(state.notice?.sentence == "Coast cannot be made: Explore Maine Basemap failed on the server: no disk.")
    }

    @Test func offlineTheCardIsNotOfferedAndEscLeavesIt() {
        var state = IdentifyTests.openMap(network: .offline)
        #expect(Fixture.keys(&state, .character("N")).isEmpty && state.overlay == nil)
        #expect(state.notice == .newArea(.needsPortal))
        var online = IdentifyTests.openMap()
        _ = Fixture.keys(&online, .character("N"))
        _ = Fixture.keys(&online, .escape)
        #expect(online.overlay == nil && online.screen.kind == .map)
    }
}

@Suite("update: an area of your own")
struct OwnAreaTests {
    @Test func itIsMarkedYoursSaysHowItWasMadeAndIsNeverOfferedAnUpdate() throws {
        let spec = OnDemandSpec(name: "Camden harbor", extent: GeoExtent(xmin: -69.075, ymin: 44.195, xmax: -69.035, ymax: 44.225),
                                maxLevel: 16, detail: .street, createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        let layer = OnDemandLayer(title: "Explore Maine Basemap", kind: .vectorTiles, serviceURL: "https://h/VectorTileServer")
        let area = MapArea.onDemand(id: ItemID("0123456789abcdef0123456789abcdef")!, spec: spec,
                                    packages: [(ItemID("fedcba9876543210fedcba9876543210")!, layer, URL(string: "https://h/out/x.vtpk")!, 2_000_000)],
                                    exported: Date(timeIntervalSince1970: 1_800_000_100))
        let record = Fixture.record(for: area)
        var state = Fixture.loaded()
        state.catalog.areas.append(area)
        state.library.downloads[area.item.id] = record
        let index = try #require(state.catalog.areas.firstIndex { $0.item.id == area.item.id })
        #expect(StatusText.line(.area(index), state: state).plainText == "Downloaded · yours · 1.9 MiB", "no update: the portal lists no other version")
        Fixture.select(&state, "Camden harbor")
        let details = DetailsDocument.lines(state, width: 200).map(\.plainText).joined(separator: "\n")
        #expect(details.contains("Made on this device 2027-01-15T08:00:00Z at Street (level 16), over -69.0750, 44.1950 — -69.0350, 44.2250 (lon, lat)"), "\(details)")
    }
}
