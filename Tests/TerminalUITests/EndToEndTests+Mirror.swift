import ArcGISModel
import ArcGISPortal
import Foundation
import OfflineLibrary
import PortalFixtures
import SamplePortal
import Testing

extension EndToEndTests {
    /// A device at a site whose portal link is down: the web map staged into a mirror and served by
    /// nginx; with the portal stopped, the browser lists the areas from the mirror (the header says
    /// so), downloads one from it, and its details say where it came from.
    @Test(.enabled(if: tmuxAvailable && MirrorServer.nginx != nil, "needs tmux and nginx (scripts/setup installs both)"),
          .timeLimit(.minutes(3)))
    func withThePortalStoppedTheBrowserUsesTheMirrorAlone() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-mirror-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let portal = try SampleFixture.start()
        try await MirrorStage(client: PortalClient(portal: portal.baseURL), directory: folder + "/mirror",
                              content: .webMap(ItemID(SampleCatalog.webMapID)!, .all), includePrivate: false).run()
        portal.stop()
        let server = try MirrorServer(folder: folder + "/mirror")
        defer { server.stop() }
        try await server.waitUntilAnswering()

        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        try tmux.start("mapbook --portal \(portal.baseURL.absoluteString) --webmap \(SampleCatalog.webMapID) --mirror \(server.url)")
        var screen = try await tmux.waitFor("6 map areas", timeout: 30)
        screen = try await tmux.waitFor("● mirror only · portal not answering")
        #expect(screen.contains("mirror 127.0.0.1:\(server.port)") && !screen.contains("● online"), "the header names the mirror")
        tmux.send("j", "d")
        screen = try await tmux.waitFor("Acadia downloaded", timeout: 30)
        tmux.send("Enter")
        screen = try await tmux.waitFor("From              mirror \(server.url)")
        #expect(screen.contains("SHA-256 of mirror.json, zip CRC-32"), "the portal, stopped, could not vouch for it")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }
}
