import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

extension EndToEndTests {
    /// A field worker's day: the area downloaded, then edited offline in the browser with the
    /// portal gone — a place added through its form (a required field refused, a coded value
    /// chosen), moved, a county renamed, a place deleted after asking — and a second mapbook killed
    /// mid-save; meanwhile a colleague edits the service. Back in coverage the browser syncs the
    /// edits by itself, the area's details name each, the sample portal's own REST query holds
    /// each edit exactly once, and the colleague's change is on the map.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(4)))
    func editsMadeOfflineInTheBrowserSyncByThemselvesWhenThePortalIsBack() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        let at = "--portal \(portal.baseURL.absoluteString) --webmap \(SampleCatalog.webMapID)"
        try tmux.start("mapbook download \(at) 'Greater Portland'", fullScreen: false)
        var screen = try await tmux.waitFor("[exit 0]", timeout: 60)
        try portal.setOutage(true)

        // Offline, the area's map: a place added at the centre through its layer's form.
        tmux.respawn("mapbook \(at)")
        _ = try await tmux.waitFor("portal not answering", timeout: 30)
        // Offline, only what is on this device is listed.
        tmux.send("g", "j")
        _ = try await tmux.waitFor("2/2")
        tmux.send("m")
        _ = try await tmux.waitFor("Greater Portland › Map")
        _ = try await tmux.waitForSettled()
        tmux.send("a")
        screen = try await tmux.waitFor("New feature in Places")
        #expect(screen.contains("Place name *") && screen.contains("◂ — ▸") && screen.contains("Arcade expressions are not evaluated"), "\(screen)")
        tmux.send("Enter")
        screen = try await tmux.waitFor("Place name is required.")
        tmux.sendLiteral("Heron cove", keys: 10)
        tmux.send("Tab", "Right", "Right")
        screen = try await tmux.waitFor("◂ Town ▸")
        tmux.send("Enter")
        screen = try await tmux.waitFor("Saved a new feature in Places. 1 edit not synced.")

        // The county under it renamed through its form: the second thing identified there.
        tmux.send("i")
        screen = try await tmux.waitFor("v move")
        #expect(screen.contains("Heron cove") && screen.contains("Town"), "\(screen)")
        tmux.send("Tab")
        screen = try await tmux.waitFor("Cumberland")
        tmux.send("e")
        screen = try await tmux.waitFor("Edit Counties 3")
        tmux.send(Array(repeating: "BSpace", count: 10))
        tmux.sendLiteral("Cumbria", keys: 7)
        tmux.send("Enter")
        screen = try await tmux.waitFor("Saved the change of Counties 3. 2 edits not synced.")

        // The new place identified again, then moved a quarter of the view east.
        tmux.send("i")
        _ = try await tmux.waitFor("v move")
        tmux.send("l")
        _ = try await tmux.waitForSettled()
        tmux.send("v")
        screen = try await tmux.waitFor("Moved Places -1 to")

        // A place found by name offline, deleted after asking.
        tmux.send("s")
        tmux.sendLiteral("Westbrook", keys: 9)
        _ = try await tmux.waitFor("Westbrook")
        tmux.send("Enter")
        _ = try await tmux.waitForSettled()
        tmux.send("i")
        screen = try await tmux.waitFor("X delete")
        tmux.send("X")
        screen = try await tmux.waitFor("Delete Westbrook from Places?")
        tmux.send("y")
        screen = try await tmux.waitFor("4 edits not synced.")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")

        // A second mapbook killed mid-save: whatever it saved is kept once, or not at all.
        tmux.respawn("sh -c \"mapbook feature add \(at) --area 'Greater Portland' --layer Places --at=-70.3,43.6 --set 'name=Killed mid-save' &"
                     + " sleep 0.05; kill -9 \\$!; wait; mapbook edits list \(at)\"", fullScreen: false)
        screen = try await tmux.waitFor("[exit 0]", timeout: 60)
        #expect(screen.contains("Greater Portland: "), "\(screen)")

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

        // The area's details keep what the sync did, a line a change (mapbook opened where it was
        // left: the area's map, which Esc leaves for the list).
        tmux.send("Escape")
        _ = try await tmux.waitFor("6 map areas")
        tmux.send("g", "j", "j", "j", "j")
        _ = try await tmux.waitFor("5/7")
        tmux.send("Enter")
        screen = try await tmux.waitFor("Last sync")
        #expect(screen.contains("changes synced.") && screen.contains("added: add Places") && screen.contains("synced: update Counties 3")
                && screen.contains("synced: delete Places"), "\(screen)")
        #expect(screen.contains("The server's changes came down"), "\(screen)")
        tmux.send("Escape")
        _ = try await tmux.waitFor("5/7")

        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")

        // The office's change is in the area now, read from its own files as its map draws them.
        tmux.respawn("mapbook identify \(at) --area 'Greater Portland' --at=-70.2589,43.6574 --zoom 14", fullScreen: false)
        screen = try await tmux.waitFor("[exit 0]", timeout: 60)
        #expect(screen.contains("Renamed at the office 1") && screen.contains("Added at the office 1"), "\(screen)")

        // The server holds each edit exactly once.
        let heron = try await SampleFixture.held(by: portal, layer: 0, where: "name = 'Heron cove'")
        #expect(heron.count == 1 && heron.first?["size_class"]?.string == "Town", "\(heron)")
        #expect(try await SampleFixture.held(by: portal, layer: 0, where: "name = 'Killed mid-save'").count <= 1)
        #expect(try await SampleFixture.held(by: portal, layer: 0, where: "name = 'Westbrook'").isEmpty)
        #expect(try await SampleFixture.held(by: portal, layer: 1, where: "OBJECTID = 3").first?["NAME"]?.string == "Cumbria")
    }
}
