import AppModel
import AppRuntime
import EventLoop
import Foundation
import PortalFixtures
import SamplePortal
import Testing

/// The editor through the runtime, on an area downloaded from the sample portal: the ruler's
/// points become an area of the Counties layer (the one layer that holds areas), its form filled
/// and the edit kept in the area's journal.
@Suite("the feature editor through the runtime")
@UIActor
struct FeatureEditorRuntimeTests {
    @Test func theRulersPointsBecomeANewAreaThroughItsForm() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        program.transcript = []
        program.send(.intent(.list(.selectRow(4))))
        #expect(program.state.title(of: try #require(program.state.selectedRow, "the web map did not load")) == "Greater Portland")
        let area = program.state.catalog.areas[3].item.id
        program.send(.terminal(.key(.character("d"))))
        try #require(await ProgramFixture.received(program) { if case .downloads(.download(.finished(area, _))) = $0 { true } else { nil } } != nil)
        program.send(.terminal(.key(.character("m"))))
        try #require(await ProgramFixture.received(program) { if case .map(.featureLayersOpened) = $0 { true } else { nil } } != nil)

        // Three points with the ruler (the centre the third), the second taken back and laid again.
        for key: Key in [.character("R"), .right, .character("R"), .down, .character("R"), .backspace, .character("R"), .left] {
            program.send(.terminal(.key(key)))
        }
        #expect(program.state.map?.ruler?.points.count == 3)
        program.send(.terminal(.key(.character("a"))))
        let opened = await ProgramFixture.received(program) { event -> FeatureEditor? in
            if case .edits(.editorOpened(let editor)) = event { editor } else { nil }
        }
        let editor = try #require(opened, "no form: \(program.state.notice?.sentence ?? "")")
        #expect(editor.layers.map(\.title) == ["Counties"])
        guard case .addShape(let vertices) = editor.target else { Issue.record("\(editor.target)"); return }
        #expect(vertices.count == 4)
        for character in "Lakeside" { program.send(.intent(.form(.type(character)))) }
        program.send(.terminal(.key(.enter)))
        try #require(await ProgramFixture.received(program) { if case .edits(.saved) = $0 { true } else { nil } } != nil,
                     "not saved: \(program.state.notice?.sentence ?? "")")
        #expect(program.state.notice?.sentence == "Saved a new feature in Counties through 4 points. 1 edit not synced.")
        #expect(program.state.map?.ruler == nil && program.state.overlay == nil)
        #expect(program.state.library.unsyncedEdits[area] == 1)
    }
}
