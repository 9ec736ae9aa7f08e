import AppModel
import AppRuntime
import ArcGISModel
import EventLoop
import Foundation
import MapRender
import PortalFixtures
import SamplePortal
import Testing
import TestScheduling

/// The editor through the runtime, on an area downloaded from the sample portal: the ruler's
/// points become an area of the Counties layer (the one layer that holds areas), its form filled
/// and the edit kept in the area's journal (synced by hand only: a sync by itself, as soon as it is
/// saved, would otherwise race the look at what waits).
@Suite("the feature editor through the runtime", .aheadOfQueuedTests)
@UIActor
struct FeatureEditorRuntimeTests {
    @Test func theRulersPointsBecomeANewAreaThroughItsForm() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL, preferences: { $0.syncsEditsByItself = false })
        defer { Task { await program.shutdown() } }
        program.transcript = []
        program.send(.intent(.list(.selectRow(4))))
        #expect(program.state.title(of: try #require(program.state.selectedRow, "the web map did not load")) == "Greater Portland")
        let area = program.state.catalog.areas[3].item.id
        program.send(.terminal(.key(.character("d"))))
        try #require(await ProgramFixture.received(program, timeout: .seconds(60)) { if case .downloads(.download(.finished(area, _))) = $0 { true } else { nil } } != nil)
        program.send(.terminal(.key(.character("m"))))
        try #require(await ProgramFixture.received(program, timeout: .seconds(60)) { if case .map(.featureLayersOpened) = $0 { true } else { nil } } != nil)

        // Three points with the ruler (the centre the third), the second taken back and laid again.
        for key: Key in [.character("R"), .right, .character("R"), .down, .character("R"), .backspace, .character("R"), .left] {
            program.send(.terminal(.key(key)))
        }
        #expect(program.state.map?.ruler?.points.count == 3)
        program.send(.terminal(.key(.character("a"))))
        let opened = await ProgramFixture.received(program, timeout: .seconds(60)) { event -> FeatureEditor? in
            if case .edits(.editorOpened(let editor)) = event { editor } else { nil }
        }
        let editor = try #require(opened, "no form: \(program.state.notice?.sentence ?? "")")
        #expect(editor.layers.map(\.title) == ["Counties"])
        guard case .addShape(let vertices) = editor.target else { Issue.record("\(editor.target)"); return }
        #expect(vertices.count == 4)
        for character in "Lakeside" { program.send(.intent(.form(.type(character)))) }
        program.send(.terminal(.key(.enter)))
        try #require(await ProgramFixture.received(program, timeout: .seconds(60)) { if case .edits(.saved) = $0 { true } else { nil } } != nil,
                     "not saved: \(program.state.notice?.sentence ?? "")")
        #expect(program.state.notice?.sentence == "Saved a new feature in Counties through 4 points. 1 edit not synced.")
        #expect(program.state.map?.ruler == nil && program.state.overlay == nil)
        #expect(program.state.library.unsyncedEdits[area] == 1)
    }

    /// The web map's own map, online: a place added through its form goes straight to the service
    /// (kept in the web map's journal until the sync, at once, says it went), then changed and
    /// deleted from the feature identified.
    @Test func theWebMapsOwnLayersAreEditedOnline() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        program.transcript = []
        program.send(.intent(.list(.selectRow(0))))
        let webMap = try #require(program.state.catalog.webMapItem?.id)
        program.send(.terminal(.key(.character("m"))))
        try #require(await ProgramFixture.received(program, timeout: .seconds(60)) { if case .map(.featureLayersOpened) = $0 { true } else { nil } } != nil)
        program.send(.terminal(.key(.character("a"))))
        let opened = await ProgramFixture.received(program, timeout: .seconds(60)) { event -> FeatureEditor? in
            if case .edits(.editorOpened(let editor)) = event { editor } else { nil }
        }
        let editor = try #require(opened, "no form: \(program.state.notice?.sentence ?? "")")
        #expect(editor.area == webMap && editor.layers.map(\.title) == ["Places"])
        for character in "Online cove" { program.send(.intent(.form(.type(character)))) }
        program.send(.terminal(.key(.enter)))
        let synced = await ProgramFixture.received(program, timeout: .seconds(60)) { event -> SyncSummary? in
            if case .edits(.synced(webMap, let summary, _)) = event { summary } else { nil }
        }
        #expect(synced?.synced == 1, "\(program.state.notice?.sentence ?? "")")
        let held = try await SampleFixture.held(by: portal, layer: 0, where: "name = 'Online cove'")
        let objectID = try #require(held.first?["OBJECTID"]?.int64)
        #expect(held.count == 1 && program.state.library.unsyncedEdits[webMap] == nil)

        // Changed from its form as identified, then deleted: each read from the service, each synced.
        program.transcript = []
        let hit = IdentifyHit(card: PopupCard(layer: "Places", title: "Online cove", rows: []), geometry: nil, feature: .init(layer: "Places", objectID: objectID))
        program.send(.terminal(.key(.character("i"))))
        let id = try #require(program.state.map?.identify?.id)
        program.send(.map(.identified(session: program.state.map!.session, id: id, [hit])))
        program.send(.terminal(.key(.character("e"))))
        let form = await ProgramFixture.received(program, timeout: .seconds(60)) { event -> FeatureEditor? in
            if case .edits(.editorOpened(let editor)) = event { editor } else { nil }
        }
        #expect(form?.typed["name"] == "Online cove", "its values read from the service: \(program.state.notice?.sentence ?? "")")
        program.send(.intent(.form(.set(field: "population", value: "12"))))
        program.send(.terminal(.key(.enter)))
        _ = await ProgramFixture.received(program, timeout: .seconds(60)) { if case .edits(.synced(webMap, _, _)) = $0 { true } else { nil } }
        #expect(try await SampleFixture.held(by: portal, layer: 0, where: "OBJECTID = \(objectID)").first?["population"] == .number(12))
        program.transcript = []
        program.send(.terminal(.key(.character("i"))))
        program.send(.map(.identified(session: program.state.map!.session, id: program.state.map!.identify!.id, [hit])))
        program.send(.terminal(.key(.character("X"))))
        program.send(.terminal(.key(.character("y"))))
        _ = await ProgramFixture.received(program, timeout: .seconds(60)) { if case .edits(.synced(webMap, _, _)) = $0 { true } else { nil } }
        #expect(try await SampleFixture.held(by: portal, layer: 0, where: "OBJECTID = \(objectID)").isEmpty)
    }
}
