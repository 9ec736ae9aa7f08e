import Foundation
import LibraryModel
import MapbookCore
import Testing
@testable import AppModel
import ArcGISModel

/// The Maps card's Packages tab: Enter opens a package on this device or downloads one from the
/// portal (its progress in the row) and opens it when it arrives; `u` only for a newer version;
/// `x` asks, and the card comes back listed afresh.
@Suite("update: the Packages tab")
struct PackagesTabTests {
    let portalOnly = ItemID("0ff1ab00c7d84e9f0a1b2c3d4e5f6a57")!
    let downloaded = ItemID("1ff1ab00c7d84e9f0a1b2c3d4e5f6a57")!

    func card(_ state: AppState) -> WebMapsBrowser? {
        if case .maps(let maps)? = state.overlay { return maps }
        return nil
    }

    /// The card on the Packages tab: a portal package, and one downloaded with a newer version on the portal.
    func onPackages() -> AppState {
        var state = Fixture.loaded()
        #expect(Fixture.keys(&state, .character("M"), .left).contains(.maps(.loadMaps(WebMapsRequest(tab: .packages)))))
        _ = App.update(&state, .maps(.mapsLoaded(WebMapsRequest(tab: .packages), .success(WebMapsPage([
            MapListing(id: portalOnly, title: "Maine Places", package: PackageListing(item: portalOnly, size: 2_000_000)),
            MapListing(id: downloaded, title: "Campus", package: PackageListing(path: "/p/campus.mmpk", item: downloaded, size: 1_000,
                                                                                  maps: 2, updateAvailable: true)),
        ])))))
        return state
    }

    @Test func enterDownloadsAPortalPackageShowsItsProgressAndOpensItWhenItArrives() {
        var state = onPackages()
        #expect(card(state)?.rows.first?.facts == ["1.9 MiB"])
        #expect(Fixture.keys(&state, .enter) == [.packages(.downloadPackage(portalOnly, title: "Maine Places"))])
        #expect(Fixture.keys(&state, .enter).isEmpty, "one download at a time")
        _ = App.update(&state, .packages(.packageProgress(portalOnly, DownloadProgress(bytes: 500_000, total: 2_000_000, bytesPerSecond: nil))))
        #expect(card(state)?.rows.first?.facts == ["Downloading 25%", "488.3 KiB of 1.9 MiB"])
        _ = App.update(&state, .packages(.packageDownloaded(portalOnly, title: "Maine Places",
                                                  .success(PackageListing(path: "/p/maine.mmpk", item: portalOnly, size: 2_000_000, maps: 1)))))
        #expect(state.handoff.nextPackage == "/p/maine.mmpk" && state.handoff.isQuitting)
    }

    @Test func aFailedDownloadSaysWhyInItsRowAndOpensNothing() {
        var state = onPackages()
        _ = Fixture.keys(&state, .enter)
        _ = App.update(&state, .packages(.packageDownloaded(portalOnly, title: "Maine Places",
                                                  .failure(LoadFailure(sentence: "The portal is not answering\u{1B}[2J.", network: .portalNotAnswering, host: "h")))))
        #expect(state.handoff.nextPackage == nil && !state.handoff.isQuitting)
        #expect(card(state)?.rows.first?.facts == ["Download failed: The portal is not answering."])
        // Enter tries again.
        #expect(Fixture.keys(&state, .enter) == [.packages(.downloadPackage(portalOnly, title: "Maine Places"))])
    }

    @Test func enterOpensOneHereAndUFetchesItsNewerVersion() {
        var state = onPackages()
        _ = Fixture.keys(&state, .down)
        #expect(card(state)?.rows[1].facts.first == "Update available · u")
        #expect(Fixture.keys(&state, .character("u")) == [.packages(.downloadPackage(downloaded, title: "Campus"))])
        _ = App.update(&state, .packages(.packageDownloaded(downloaded, title: "Campus",
                                                  .success(PackageListing(path: "/p/campus.mmpk", item: downloaded, size: 1_100, maps: 2)))))
        // Not asked to open: it stays in the card, up to date.
        #expect(state.handoff.nextPackage == nil && card(state)?.rows[1].facts.first == "On this device")
        #expect(Fixture.keys(&state, .character("u")).isEmpty, "nothing newer")
        _ = Fixture.keys(&state, .enter)
        #expect(state.handoff.nextPackage == "/p/campus.mmpk" && state.handoff.isQuitting)
    }

    @Test func xAsksThenRemovesAndTheCardComesBack() {
        var state = onPackages()
        #expect(Fixture.keys(&state, .character("x")).isEmpty && card(state) != nil, "not on this device: nothing to remove")
        _ = Fixture.keys(&state, .down, .character("x"))
        guard case .confirm(let question)? = state.overlay else { Issue.record("x did not ask"); return }
        #expect(question.question == "Remove Campus from this device?")
        #expect(Fixture.keys(&state, .character("y")) == [.packages(.removePackage(path: "/p/campus.mmpk", title: "Campus"))])
        let effects = App.update(&state, .packages(.packageRemoved(title: "Campus", .success(()))))
        #expect(effects == [.maps(.loadMaps(WebMapsRequest(tab: .packages)))] && card(state)?.tab == .packages)
        #expect(state.notice == .removed(title: "Campus"))
    }

    @Test func aRowIDForAPackageWithoutAnItemIsStableAndDistinct() {
        #expect(PackageListing.rowID(fileName: "a.mmpk") == PackageListing.rowID(fileName: "a.mmpk"))
        #expect(PackageListing.rowID(fileName: "a.mmpk") != PackageListing.rowID(fileName: "b.mmpk"))
    }
}
