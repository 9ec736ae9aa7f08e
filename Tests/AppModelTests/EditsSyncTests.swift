import AppModel
import ArcGISModel
import Foundation
import Testing

/// Edits saved offline go back: by themselves once the portal answers (`sync = auto`), or with `y`;
/// each sync's outcome is said and kept on the area, a refusal never fades.
struct EditsSyncTests {
    static func loaded(edits: [ItemID: Int], byItself: Bool = true) -> (AppState, [Effect]) {
        var state = AppState(portalHost: "start", webMapID: Fixture.webMapID)
        state.preferences.syncsEditsByItself = byItself
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        _ = App.update(&state, .catalog(.connected(host: "portal.example.com")))
        let records = Dictionary(uniqueKeysWithValues: Fixture.areas.filter { edits[$0.item.id] != nil }.map { ($0.item.id, Fixture.record(for: $0)) })
        let effects = App.update(&state, .catalog(.webMapLoaded(WebMapSnapshot(
            catalog: Fixture.catalog, library: LibrarySnapshot(catalog: nil, downloads: records, partialBytes: [:], unsyncedEdits: edits),
            host: "portal.example.com"))))
        return (state, effects)
    }

    static func syncs(_ effects: [Effect]) -> [ItemID] {
        effects.compactMap { if case .edits(.sync(let area)) = $0 { area } else { nil } }
    }

    @Test func editsWaitingSyncByThemselvesOnceThePortalAnswersAndOnlyOnce() {
        var (state, effects) = Self.loaded(edits: [Fixture.acadia: 3, Fixture.bangor: 1])
        #expect(Self.syncs(effects) == [Fixture.acadia, Fixture.bangor].sorted { $0.rawValue < $1.rawValue })
        #expect(state.notice == .edits(.syncing(count: 2)))
        #expect(!state.isSettled, "a sync under way holds a script's next command")
        // A reload while they run does not start them twice.
        let again = App.update(&state, .catalog(.webMapLoaded(WebMapSnapshot(
            catalog: Fixture.catalog, library: LibrarySnapshot(catalog: nil, downloads: state.library.downloads, partialBytes: [:],
                                                               unsyncedEdits: state.library.unsyncedEdits), host: "portal.example.com"))))
        #expect(Self.syncs(again).isEmpty)

        let clean = SyncSummary(synced: 3, refused: 0, waiting: 0, at: Date(timeIntervalSince1970: 1_800_000_000))
        _ = App.update(&state, .edits(.synced(area: Fixture.acadia, clean, unsynced: 0)))
        #expect(state.library.unsyncedEdits[Fixture.acadia] == nil)
        #expect(state.notice?.sentence == "Acadia: 3 changes synced.")
        #expect(state.notice?.fades == true)

        let refused = SyncSummary(synced: 0, refused: 1, waiting: 0, firstRefusal: "Unable to find feature.\u{1B}[2J", at: Date(timeIntervalSince1970: 1_800_000_000))
        _ = App.update(&state, .edits(.synced(area: Fixture.bangor, refused, unsynced: 1)))
        #expect(state.notice?.sentence == "Bangor: 0 changes synced; 1 refused: Unable to find feature.")
        #expect(state.notice?.fades == false, "a refusal stays until something replaces it")
        #expect(state.library.unsyncedEdits[Fixture.bangor] == 1, "the refused edit still waits")
        #expect(state.isSettled)

        // The area's details keep what the last sync did.
        Fixture.select(&state, "Bangor")
        state.screen = .details(scroll: 0)
        let details = DetailsDocument.lines(state, width: 160).map(\.plainText).joined(separator: "\n")
        #expect(details.contains("Last sync") && details.contains("1 refused: Unable to find feature."), "\(details)")
        #expect(details.contains("y syncs them"), "\(details)")
    }

    @Test func withSyncManualNothingGoesUntilAsked() {
        var (state, effects) = Self.loaded(edits: [Fixture.acadia: 2], byItself: false)
        #expect(Self.syncs(effects).isEmpty)
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("y"))
        #expect(state.notice == .edits(.nothingToSync), "Bangor has no edits")
        Fixture.select(&state, "Acadia")
        #expect(Self.syncs(Fixture.keys(&state, .character("y"))) == [Fixture.acadia])
        #expect(Self.syncs(Fixture.keys(&state, .character("y"))).isEmpty, "already syncing")
    }

    @Test func onTheWebMapsRowEveryAreasEditsGoAndOfflineTheySayWhy() {
        var (state, _) = Self.loaded(edits: [Fixture.acadia: 2, Fixture.portland: 1], byItself: false)
        _ = App.update(&state, .intent(.list(.selectRow(0))))
        #expect(Set(Self.syncs(Fixture.keys(&state, .character("y")))) == [Fixture.acadia, Fixture.portland])
        var offline = Self.loaded(edits: [Fixture.acadia: 2], byItself: false).0
        _ = App.update(&offline, .catalog(.network(.offline)))
        Fixture.select(&offline, "Acadia")
        #expect(Self.syncs(Fixture.keys(&offline, .character("y"))).isEmpty)
        #expect(offline.notice == .edits(.offline))
    }

    @Test func aSyncThatCouldNotRunSaysWhyAndTheEditsStillWait() {
        var (state, _) = Self.loaded(edits: [Fixture.acadia: 2])
        _ = App.update(&state, .edits(.syncFailed(area: Fixture.acadia, sentence: "The journal is damaged.")))
        #expect(state.notice?.sentence == "Acadia: the edits were not synced: The journal is damaged.")
        #expect(state.library.unsyncedEdits[Fixture.acadia] == 2)
        #expect(state.library.syncing.isEmpty)
    }
}

/// Changes held because the server changed the same fields: `K` sends the user's values, `T` takes
/// the server's, each only after asking; neither is offered where nothing is held.
struct ConflictSettlingTests {
    @Test func heldChangesAreSettledOnlyAfterAsking() throws {
        var (state, _) = EditsSyncTests.loaded(edits: [Fixture.acadia: 1], byItself: false)
        Fixture.select(&state, "Acadia")
        #expect(Fixture.keys(&state, .character("K")).isEmpty && state.overlay == nil)
        #expect(state.notice?.sentence == "No change of this area waits on a conflict with the server.")
        let held = SyncSummary(synced: 0, refused: 1, waiting: 0, conflicts: 1,
                               firstRefusal: "Changed on the server too: name is “Harbor” here, “Office” on the server (it was “Old”).",
                               at: Date(timeIntervalSince1970: 1_800_000_000))
        _ = App.update(&state, .edits(.synced(area: Fixture.acadia, held, unsynced: 1)))
        state.screen = .details(scroll: 0)
        let details = DetailsDocument.lines(state, width: 200).map(\.plainText).joined(separator: "\n")
        #expect(details.contains("1 change the server made too: K sends yours, T takes the server's"), "\(details)")

        #expect(Fixture.keys(&state, .character("T")).isEmpty)
        guard case .confirm(let question)? = state.overlay else { Issue.record("not asked"); return }
        #expect(question.question == "Take the server's values in the change the server changed too?")
        #expect(question.answers == "y yes, take the server's · n not now")
        // Esc (no) leaves the change held, as it was.
        #expect(App.update(&state, .intent(.confirm(false))).isEmpty && state.library.lastSync[Fixture.acadia]?.conflicts == 1)
        _ = Fixture.keys(&state, .character("K"))
        #expect(App.update(&state, .intent(.confirm(true))) == [.edits(.settle(area: Fixture.acadia, keepMine: true))])
        #expect(state.library.syncing.contains(Fixture.acadia) && !state.isSettled)
    }
}
