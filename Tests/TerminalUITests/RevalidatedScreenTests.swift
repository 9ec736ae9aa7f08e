import AppModel
import EventLoop
import Foundation
import HTTP
import PortalFixtures
import Testing
import TestScheduling
@testable import TerminalRender
@testable import TerminalUI

/// With the portal's answers kept, a reload asks about them (If-None-Match), the portal answers 304,
/// and the screen does not change by a cell.
@Suite(.aheadOfQueuedTests) struct RevalidatedScreenTests {
    @Test @UIActor func aReloadAnsweredWith304ChangesNothingOnScreen() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-304-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL, cache: HTTPCache(directory: folder)) {
            ProgramFixture.settledLoad($0) && $0.overview.basemap != nil
        }
        defer { Task { await program.shutdown() } }
        let before = SnapshotState.render(program.state, width: 120, height: 40)
        let asked = portal.requests.count
        program.send(.terminal(.key(.character("r"))))
        #expect(await ProgramFixture.settle(program) { $0.notice == nil && portal.requests.count > asked + 2 })
        let again = portal.requests.dropFirst(asked).filter { $0.path.hasPrefix("/sharing/rest/content/items/") }
        #expect(!again.isEmpty && again.allSatisfy { $0.headers["if-none-match"] != nil })
        let after = SnapshotState.render(program.state, width: 120, height: 40)
        #expect(after.changes(from: before).isEmpty, "a 304 changes nothing on screen")
    }
}
