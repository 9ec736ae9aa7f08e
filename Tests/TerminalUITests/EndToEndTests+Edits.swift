import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

extension EndToEndTests {
    /// A field worker's day: the area downloaded, then edited offline with the portal gone (a place
    /// added, a county renamed, and a second mapbook killed mid-save); meanwhile a colleague edits
    /// the service; back in coverage, the browser syncs the edits by itself, the row and the area's
    /// details say what went, the sample portal's own REST query holds each edit exactly once, and
    /// the colleague's change is in the area's files.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func editsSavedOfflineSyncByThemselvesWhenThePortalIsBack() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        let at = "--portal \(portal.baseURL.absoluteString) --webmap \(SampleCatalog.webMapID)"
        try tmux.start("mapbook download \(at) 'Greater Portland'", fullScreen: false)
        var screen = try await tmux.waitFor("[exit 0]", timeout: 60)

        try portal.setOutage(true)
        // One command a pane: the pane's environment (the library, PATH) is the first command's.
        for command in ["mapbook feature add \(at) --area 'Greater Portland' --layer Places --at=-70.2,43.7 --set 'name=Heron cove'",
                        "mapbook feature update \(at) --area 'Greater Portland' --layer Counties --id 3 --set NAME=Cumbria",
                        "sh -c \"mapbook feature add \(at) --area 'Greater Portland' --layer Places --at=-70.3,43.6 --set 'name=Killed mid-save' &"
                            + " sleep 0.05; kill -9 \\$!; wait; mapbook edits list \(at)\""] {
            tmux.respawn(command, fullScreen: false)
            screen = try await tmux.waitFor("[exit 0]", timeout: 60)
        }
        #expect(screen.contains("Greater Portland: ") && screen.contains("Heron cove") && screen.contains("Cumbria"), "\(screen)")

        try portal.setOutage(false)
        // Meanwhile, at the office: Portland renamed, a place added beside it.
        let portland = try #require(try await SampleFixture.held(by: portal, layer: 0, where: "name = 'Portland'").first?["OBJECTID"]?.int64)
        try await SampleFixture.admin(portal, "officeEdit=\(portland)")
        tmux.respawn("mapbook \(at)")
        // The news fades after a few seconds; what lasts is the row, which stops saying edits wait.
        screen = try await tmux.waitUntil("the edits synced by themselves", timeout: 60) {
            $0.contains("● online") && $0.contains("Greater Portland") && !$0.contains("edits not synced") && !$0.contains("edit not synced")
        }
        #expect(!screen.contains("refused") && !screen.contains("still wait"), "\(screen)")

        // The area's details keep what the sync did.
        tmux.send("g", "j", "j", "j", "j")
        _ = try await tmux.waitFor("5/7")
        tmux.send("Enter")
        screen = try await tmux.waitFor("Last sync")
        #expect(screen.contains("changes synced.") && screen.contains("The server's changes came down"), "\(screen)")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")

        // The office's change is in the area now, read from its own files.
        tmux.respawn("mapbook identify \(at) --area 'Greater Portland' --at=-70.2589,43.6574 --zoom 14", fullScreen: false)
        screen = try await tmux.waitFor("[exit 0]", timeout: 60)
        #expect(screen.contains("Renamed at the office 1") && screen.contains("Added at the office 1"), "\(screen)")

        // The server holds each edit exactly once.
        #expect(try await SampleFixture.held(by: portal, layer: 0, where: "name = 'Heron cove'").count == 1)
        #expect(try await SampleFixture.held(by: portal, layer: 0, where: "name = 'Killed mid-save'").count <= 1)
        #expect(try await SampleFixture.held(by: portal, layer: 1, where: "OBJECTID = 3").first?["NAME"]?.string == "Cumbria")
    }
}
