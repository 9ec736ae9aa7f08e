import AppModel
import EventLoop
import Foundation
import MapRender
import MapbookCore
import OfflineLibrary
import TerminalCanvas
import Testing
@testable import TerminalRender
@testable import TerminalUI
import LibraryModel

/// Download states on screen: progress bars, downloaded and failed rows, offline, the remove question.
@Suite struct DownloadSnapshotTests {
    /// Explore Maine with Greater Portland downloaded (index 3), Bangor downloading and Acadia failed.
    @UIActor static func state() async -> AppState {
        var state = await SnapshotState.loaded()
        let portland = state.catalog.areas[3], bangor = state.catalog.areas[5], acadia = state.catalog.areas[0]
        state.library.downloads[portland.item.id] = DownloadRecord(
            areaID: portland.item.id, areaItem: .null, packageItems: [],
            packages: [.init(id: portland.packages[0].item.id, title: "Greater Portland basemap", type: "Vector Tile Package",
                             fileName: "p.vtpk", size: portland.size,
                             modified: portland.packages[0].item.modified.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) },
                             verifiedBy: "zip CRC-32")],
            downloadedAt: Date(timeIntervalSince1970: 1_763_700_000))
        state.library.transfers[bangor.item.id] = .running(DownloadProgress(bytes: 987_654, total: bangor.size, bytesPerSecond: 1_250_000))
        state.library.transfers[acadia.item.id] = .failed("www.example.com answered HTTP 503 (service unavailable).")
        return state
    }

    @Test @UIActor func rowsShowProgressDownloadedAndFailed() async {
        let frame = SnapshotState.render(await Self.state(), width: 120, height: 40)
        expectSnapshot(frame, "downloads-120x40")
        let text = frame.text
        #expect(text.contains("Downloading ▕"))
        #expect(text.contains("% "))
        #expect(text.contains("MiB/s"))
        #expect(text.contains("Downloaded · 2.1 MiB"))
        #expect(text.contains("Failed — r to retry"))
    }

    @Test @UIActor func detailsShowWhatIsOnThisDevice() async {
        var state = await Self.state()
        state.screen = .details(scroll: 0)
        state.list.selection = 4
        let text = SnapshotState.render(state, width: 100, height: 60).text
        #expect(text.contains("Size on disk      2.1 MiB"))
        #expect(text.contains("Verified          zip CRC-32"))
        #expect(text.contains("Update            Up to date"))
    }

    @Test @UIActor func offlineListsOnlyWhatIsOnThisDeviceOrOnItsWay() async {
        var state = await Self.state()
        state.portal.network = .offline
        state.notice = .offline
        state.library.transfers[state.catalog.areas[5].item.id] = .waitingForNetwork
        state.list.selection = 0
        let frame = SnapshotState.render(state, width: 120, height: 40)
        expectSnapshot(frame, "downloads-offline-120x40")
        let text = frame.text
        #expect(text.contains("Greater Portland"))
        #expect(text.contains("Bangor") && text.contains("Waiting for the network"))
        #expect(text.contains("Acadia") && text.contains("Failed — r to retry"), "its bytes are kept; c discards them")
        #expect(!text.contains("Boston") && !text.contains("Caribou"))
        #expect(text.contains("3 of 6 map areas on this device"), "how many of how many are listed")
        #expect(text.contains("○ offline │ ↑↓ move  m map") && !text.contains("d download"), "the keys that still work")
    }

    @Test @UIActor func removeAsksFirst() async {
        var state = await Self.state()
        state.overlay = .confirm(Confirmation(question: "Remove Greater Portland from this device?",
                                              detail: "2.1 MiB will be deleted. It can be downloaded again.",
                                              action: .remove(state.catalog.areas[3].item.id)))
        let frame = SnapshotState.render(state, width: 80, height: 24)
        expectSnapshot(frame, "downloads-confirm-80x24")
        #expect(frame.text.contains("y yes, remove · n no, keep it"))
    }

    @Test func progressTextMatchesTheDesign() {
        #expect(ProgressText.bar(fraction: 0.49, width: 11, ascii: false) == "▕████▍    ▏")
        #expect(ProgressText.bar(fraction: 1, width: 6, ascii: false) == "▕████▏")
        #expect(ProgressText.bar(fraction: 0.5, width: 6, ascii: true) == "[##  ]")
        #expect(ProgressText.figures(bytes: 3_250_586, total: 6_920_601, bytesPerSecond: 1_258_291)
                == "46%  3.1/6.6 MiB  1.2 MiB/s  0:03")
        #expect(ProgressText.figures(bytes: 500, total: nil, bytesPerSecond: nil) == "500 B")
        // Narrower, the amounts go first, then the rate: the percentage and the time left stay.
        let fit = { (width: Int) in ProgressText.figures(bytes: 3_250_586, total: 6_920_601, bytesPerSecond: 1_258_291, fitting: width) }
        #expect(fit(40) == "46%  3.1/6.6 MiB  1.2 MiB/s  0:03")
        #expect(fit(25) == "46%  1.2 MiB/s  0:03")
        #expect(fit(12) == "46%  0:03")
        #expect(fit(4) == "46%")
        // The packages are in; the feature layers are being copied: said, not a silent 100 %.
        #expect(DownloadProgress(bytes: 6_920_601, total: 6_920_601, bytesPerSecond: nil, featureCopies: FeatureCopyCount(done: 0, total: 2))
            .figures == "6.6 MiB  copying layers 1/2")
        #expect(ProgressText.duration(3_725) == "1:02:05")
    }

    /// `mapbook download`'s line per running area: the title gives way before the figures, and
    /// the line never passes the width it is given.
    @Test func aCommandLineDownloadLineFitsItsWidth() {
        let progress = DownloadProgress(bytes: 3_250_586, total: 6_920_601, bytesPerSecond: 1_258_291)
        let wide = progress.line(title: "Acadia National Park", width: 119)
        #expect(wide == "Acadia National Park         ▕█████▋      ▏ 46%  3.1/6.6 MiB  1.2 MiB/s  0:03")
        #expect(progress.line(title: "Acadia National Park", width: 61) == "Acadia Nati… ▕█████▋      ▏ 46%  3.1/6.6 MiB  1.2 MiB/s  0:03")
        #expect(progress.line(title: "Acadia National Park", width: 59) == "Acadia Nati… ▕█████▋      ▏ 46%  1.2 MiB/s  0:03")
        for width in [20, 30, 40, 50, 79] {
            #expect(DisplayWidth.of(progress.line(title: "Acadia National Park", width: width)) <= max(width, 33), "width \(width)")
        }
        #expect(progress.line(title: "Acadia National Park", width: 40).hasSuffix("46%  0:03"))
        #expect(!progress.line(title: "Bad\u{1B}[31mTitle", width: 80).contains("\u{1B}"))
    }
}
