import AppModel
import ArcGISModel
import Testing

/// Never silent: an area with edits saved offline and not synced says how many on its row, in its
/// details and in the map's header; the library read at the start carries the counts in.
struct EditsWaitingTests {
    @Test func anAreasRowDetailsAndMapSayHowManyEditsWait() throws {
        var state = Fixture.loaded(downloaded: [Fixture.acadia])
        _ = App.update(&state, .catalog(.libraryRead(LibrarySnapshot(catalog: nil, downloads: state.library.downloads, partialBytes: [:],
                                                                     unsyncedEdits: [Fixture.acadia: 3]))))
        let row = try #require(state.rows.firstIndex(of: .area(0)))
        let line = StatusText.line(state.rows[row], state: state).plainText
        #expect(line.hasPrefix("Downloaded") && line.contains(" · 3 edits not synced · "), "\(line)")
        #expect(StatusText.line(state.rows[row], state: state, wording: .commands(number: row + 1)).plainText.contains("3 edits not synced"),
                "the plain mode says it too")
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .character("x"))
        guard case .confirm(let question)? = state.overlay else { Issue.record("no question"); return }
        #expect(question.detail.hasSuffix("Its 3 edits not synced stay on this device."), "\(question.detail)")
        state.overlay = nil
        state.screen = .details(scroll: 0)
        let details = DetailsDocument.lines(state, width: 160).map(\.plainText).joined(separator: "\n")
        #expect(details.contains("3 edits not synced: saved on this device"), "\(details)")
        #expect(state.library.editsWaiting(in: Fixture.acadia) == "3 edits not synced")
        state.library.unsyncedEdits[Fixture.acadia] = 1
        #expect(state.library.editsWaiting(in: Fixture.acadia) == "1 edit not synced")
        #expect(state.library.editsWaiting(in: Fixture.portland) == nil && state.library.editsWaiting(in: nil) == nil)
    }
}
