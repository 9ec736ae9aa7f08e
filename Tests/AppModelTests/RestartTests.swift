import AppModel
import Foundation
import MapbookCore
import OfflineLibrary
import Testing

/// Downloads across restarts: what an earlier run left part way shows as paused with its share,
/// resumes by itself once the portal answers (unless the setting says not to), and quitting while
/// downloads run asks first.
@Suite("update: downloads across restarts")
struct RestartTests {
    /// Bangor (2.0 MiB) was 40 % down when mapbook was killed.
    private func restarted(resumes: Bool = true, network: NetworkState = .online) -> (AppState, [Effect]) {
        var state = AppState(portalHost: "p", webMapID: Fixture.webMapID)
        state.library.resumesInterrupted = resumes
        _ = App.update(&state, .terminal(.resized(Display(width: 120, height: 40))))
        let bangorSize = Fixture.catalog.areas.first { $0.item.id == Fixture.bangor }!.size
        let partial = [Fixture.bangor: (bangorSize * 2 + 4) / 5]
        _ = App.update(&state, .catalog(.libraryRead(LibrarySnapshot(catalog: Fixture.catalog, downloads: [:], partialBytes: partial))))
        if network != .online {
            _ = App.update(&state, .catalog(.webMapFailed(LoadFailure(sentence: "Cannot reach p.", network: network, host: "p"))))
            return (state, [])
        }
        _ = App.update(&state, .catalog(.connected(host: "p")))
        let effects = App.update(&state, .catalog(.webMapLoaded(WebMapSnapshot(
            catalog: Fixture.catalog, library: LibrarySnapshot(catalog: nil, downloads: [:], partialBytes: partial), host: "p"))))
        return (state, effects)
    }

    private func bangorIndex(_ state: AppState) -> Int { state.catalog.areas.firstIndex { $0.item.id == Fixture.bangor }! }

    @Test func offlineAnInterruptedDownloadShowsPausedWithItsShare() {
        var (state, _) = restarted(network: .offline)
        let index = bangorIndex(state)
        #expect(state.rows.contains(.area(index)), "listed while offline")
        let line = StatusText.line(.area(index), state: state, ascii: true).plainText
        #expect(line.hasPrefix("Paused [") && line.hasSuffix(" 40% · resumes when online"), "\(line)")
        Fixture.select(&state, "Bangor")
        let details = DetailsDocument.lines(state, width: 160).map(\.plainText).joined(separator: "\n")
        #expect(details.contains("arrived before mapbook stopped; it resumes when online, c discards it."))
    }

    @Test func onlineItResumesByItselfOnce() {
        let (state, effects) = restarted()
        let bangor = state.catalog.areas[bangorIndex(state)]
        #expect(effects.contains(.downloads(.download(bangor))))
        #expect(state.library.transfers[Fixture.bangor] == .queued)
        // A later reload does not start it again (it is running, or failed and waits for r).
        var later = state
        later.library.transfers[Fixture.bangor] = .failed("x")
        let again = App.update(&later, .catalog(.webMapLoaded(WebMapSnapshot(
            catalog: Fixture.catalog, library: LibrarySnapshot(catalog: nil, downloads: [:], partialBytes: [Fixture.bangor: 1]), host: "p"))))
        #expect(!again.contains { if case .downloads(.download) = $0 { true } else { false } })
    }

    @Test func withTheSettingOffItWaitsForD() {
        var (state, effects) = restarted(resumes: false)
        #expect(!effects.contains { if case .downloads(.download) = $0 { true } else { false } })
        let index = bangorIndex(state)
        #expect(StatusText.line(.area(index), state: state, ascii: true).plainText.hasSuffix(" 40% · d resumes"))
        #expect(StatusText.line(.area(index), state: state, ascii: true).plainText.hasPrefix("Interrupted "))
        Fixture.select(&state, "Bangor")
        #expect(Fixture.keys(&state, .character("d")) == [.downloads(.download(state.catalog.areas[index]))])
    }

    @Test func cDiscardsWhatWasLeft() {
        var (state, _) = restarted(resumes: false)
        Fixture.select(&state, "Bangor")
        #expect(Fixture.keys(&state, .character("c")) == [.downloads(.discardPartialDownload(Fixture.bangor))])
        #expect(state.library.partialBytes[Fixture.bangor] == nil)
        #expect(StatusText.line(.area(bangorIndex(state)), state: state).plainText.hasPrefix("Ready"))
    }

    @Test func quittingWhileDownloadsRunAsksFirst() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("d"))
        Fixture.select(&state, "Acadia")
        _ = Fixture.keys(&state, .character("d"))
        _ = Fixture.keys(&state, .character("q"))
        #expect(!state.handoff.isQuitting)
        guard case .confirm(let question)? = state.overlay else { Issue.record("no question"); return }
        #expect(question.question == "2 downloads running — quit and resume them next time?")
        _ = Fixture.keys(&state, .character("n"))
        #expect(state.overlay == nil && !state.handoff.isQuitting)
        _ = Fixture.keys(&state, .character("q"), .character("y"))
        #expect(state.handoff.isQuitting)
        // With nothing running, q quits at once; a signal never asks.
        var idle = Fixture.loaded()
        _ = Fixture.keys(&idle, .character("q"))
        #expect(idle.handoff.isQuitting)
    }

    @Test func offlineDownloadsUnderWayStayListedAsWaiting() {
        var state = Fixture.loaded()
        Fixture.select(&state, "Bangor")
        _ = Fixture.keys(&state, .character("d"))
        _ = App.update(&state, .catalog(.network(.offline)))
        let index = bangorIndex(state)
        #expect(state.rows.contains(.area(index)))
        #expect(StatusText.line(.area(index), state: state).plainText == "Waiting for the network · resumes when online")
    }
}

@Suite("update: an area that cannot be drawn")
struct UndrawableAreaTests {
    @Test func itIsNeverShownSimplyDownloaded() {
        let bangor = Fixture.areas.first { $0.item.id == Fixture.bangor }!
        var record = Fixture.record(for: bangor)
        record.packages[0].drawProblem = "the package \u{1B}[31mis not a tile package"
        var state = Fixture.loaded()
        state.library.downloads[Fixture.bangor] = record
        let index = state.catalog.areas.firstIndex { $0.item.id == Fixture.bangor }!
        #expect(StatusText.line(.area(index), state: state).plainText == "Downloaded — cannot be drawn: the package is not a tile package")
        Fixture.select(&state, "Bangor")
        let details = DetailsDocument.lines(state, width: 160).map(\.plainText).joined(separator: "\n")
        #expect(details.contains("Cannot be drawn: the package is not a tile package"))
    }

    @Test func tilesDamagedUpstreamAreToldCalmly() {
        let bangor = Fixture.areas.first { $0.item.id == Fixture.bangor }!
        var record = Fixture.record(for: bangor)
        record.packages[0].damagedTiles = 2
        record.packages[0].damagedLevels = [0, 1]
        var state = Fixture.loaded()
        state.library.downloads[Fixture.bangor] = record
        let index = state.catalog.areas.firstIndex { $0.item.id == Fixture.bangor }!
        let line = StatusText.line(.area(index), state: state)
        #expect(line.plainText.hasPrefix("Downloaded · 2 tiles damaged · "))
        #expect(!line.contains { $0.role == .error })
        Fixture.select(&state, "Bangor")
        let details = DetailsDocument.lines(state, width: 160).map(\.plainText).joined(separator: "\n")
        #expect(details.contains("2 damaged, at levels 0, 1; the map draws around them"))
    }
}
