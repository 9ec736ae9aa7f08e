import AppModel
import AppRuntime
import EventLoop
import ArcGISPortal
import Foundation
import MapRender
import MapbookCore
import PortalFixtures
import SnapshotSupport
import Testing
@testable import TerminalRender
@testable import TerminalUI
import TerminalCanvas

/// The state the snapshots show: Explore Maine loaded from the sample portal, Greater Portland
/// selected. Loaded once per test process.
enum SnapshotState {
    @UIActor private static var loading: Task<AppState, Never>?

    @UIActor static func loaded() async -> AppState {
        if loading == nil {
            loading = Task { @UIActor in
                let portal = try! SampleFixture.start()
                defer { portal.stop() }
                let program = await ProgramFixture.started(portal: portal.baseURL)
                // Every snapshot shows the thumbnails: a load that never brought them is said once here.
                if !ProgramFixture.settledLoad(program.state) {
                    Issue.record("the sample web map did not load with its thumbnails within three minutes")
                }
                await program.shutdown()
                var state = program.state
                state.portal.lastSynced = nil
                state.list.selection = 4
                // The snapshots show the bundled outline, as before the basemap can be drawn.
                state.overview.basemap = nil
                return state
            }
        }
        return await loading!.value
    }

    static let options = RenderOptions(glyphs: .unicode, theme: .color, geography: geography)
    static let geography = OverviewGeography.bundled()

    /// Renders the way the app does: the model told the size first (it keeps the selection in
    /// view), then the frame.
    @UIActor static func render(_ state: AppState, width: Int, height: Int, options: RenderOptions = options) -> Frame {
        var shown = state
        _ = App.update(&shown, .terminal(.resized(Renderer.display(width: width, height: height, options: options))))
        return Renderer.render(shown, width: width, height: height, options: options)
    }
}

/// Compares a frame's text with `Snapshots/NAME.txt` (see `expectTextSnapshot`).
func expectSnapshot(_ frame: Frame, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
    expectTextSnapshot(frame.text, named: name, in: directory, sourceLocation: sourceLocation)
}
