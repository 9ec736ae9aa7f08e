import AppModel
import ArcGISPortal
import Foundation
import MapRender
import MapbookCore
import PortalFixtures
import Testing
@testable import TerminalUI

/// The state the snapshots show: Explore Maine loaded from the sample portal, Greater Portland
/// selected. Loaded once per test process.
enum SnapshotState {
    @UIActor private static var loading: Task<AppState, Never>?

    @UIActor static func loaded() async -> AppState {
        if loading == nil {
            loading = Task { @UIActor in
                let portal = try! SampleFixture.start()
                defer { portal.stop() }
                let url = portal.baseURL
                let model = AppModel(state: AppState(portalHost: "", webMapID: ItemID(SampleFixture.webMapID)!), library: SampleFixture.scratchLibrary()) { PortalClient(portal: url) }
                model.reload()
                await model.waitForLoad()
                var state = model.state
                state.lastSynced = nil
                state.selection = 4
                return state
            }
        }
        return await loading!.value
    }

    static let options = RenderOptions(glyphs: .unicode, theme: .color, geography: geography)
    static let geography = OverviewGeography.bundledMaine()

    /// Renders the way the app does: metrics first (the model keeps the selection in view), then the frame.
    @UIActor static func render(_ state: AppState, width: Int, height: Int, options: RenderOptions = options) -> Frame {
        let model = AppModel(state: state, library: SampleFixture.scratchLibrary()) { throw CancellationError() }
        model.layoutChanged(Renderer.metrics(state, width: width, height: height, options: options))
        return Renderer.render(model.state, width: width, height: height, options: options)
    }
}

/// Compares a frame's text with `Snapshots/NAME.txt`. With MAPBOOK_RECORD_SNAPSHOTS=1 the file is
/// (re)written instead, and the test fails so a recording is never mistaken for a pass.
func expectSnapshot(_ frame: Frame, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Snapshots").appendingPathComponent(name + ".txt")
    let actual = frame.text + "\n"
    if ProcessInfo.processInfo.environment["MAPBOOK_RECORD_SNAPSHOTS"] == "1" {
        try? actual.write(to: url, atomically: true, encoding: .utf8)
        Issue.record("recorded snapshot \(name)", sourceLocation: sourceLocation)
        return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        Issue.record("no snapshot \(name).txt; run with MAPBOOK_RECORD_SNAPSHOTS=1 to record it", sourceLocation: sourceLocation)
        return
    }
    guard expected != actual else { return }
    let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let firstDifference = zip(a, e).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, e.count)
    Issue.record("""
        snapshot \(name) differs from line \(firstDifference + 1):
        expected: \(firstDifference < e.count ? String(e[firstDifference]) : "(end)")
        actual:   \(firstDifference < a.count ? String(a[firstDifference]) : "(end)")
        """, sourceLocation: sourceLocation)
}
