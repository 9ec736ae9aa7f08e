import Editing
import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// `mapbook edits sync` against the sample portal's FeatureServer: every saved edit reaches the
/// server exactly once, whatever the server does with the connection, and a refusal stays in the
/// journal with the server's reason. The server's holdings are read over plain HTTP.
@Suite("mapbook edits sync", .serialized)
final class EditSyncTests {
    let server: SamplePortal
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-cli-sync-\(UUID())").path
    var common: [String] { ["--portal", server.baseURL.absoluteString, "--data-dir", dataDir] }
    let area = ["--area", "Greater Portland"]

    init() throws { server = try SampleFixture.start() }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func downloaded() async throws {
        let download = try await CLI.runAsync(["download", "Greater Portland"] + common)
        try #require(download.status == 0, "\(download.stderr)")
    }

    /// Adds a place offline and returns its GlobalID.
    func addPlace(_ name: String) async throws -> String {
        let added = try await CLI.runAsync(["feature", "add", "--json"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "name=\(name)"] + common)
        try #require(added.status == 0, "\(added.stderr)")
        return try #require(try json(added.stdout)["globalId"] as? String)
    }

    func sync(_ extra: [String] = []) async throws -> (status: Int32, json: [String: Any], stderr: String) {
        let run = try await CLI.runAsync(["edits", "sync", "--json"] + extra + common)
        return (run.status, try json(run.stdout), run.stderr)
    }

    func outcomes(_ report: [String: Any]) -> [String] {
        ((report["areas"] as? [[String: Any]]) ?? []).flatMap { ($0["changes"] as? [[String: Any]]) ?? [] }.compactMap { $0["outcome"] as? String }
    }

    @Test func eachChangeReachesTheServerOnceAndTheAreaStillShowsIt() async throws {
        try await downloaded()
        let globalID = try await addPlace("Heron cove")
        let renamed = try await CLI.runAsync(["feature", "update"] + area + ["--layer", "Counties", "--id", "3", "--set", "NAME=Cumbria"] + common)
        #expect(renamed.status == 0, "\(renamed.stderr)")

        let dry = try await sync(["--dry-run"])
        #expect(dry.status == 5)
        #expect(outcomes(dry.json) == ["wouldBeSent", "wouldBeSent"])
        #expect(try await SampleFixture.held(by: server, layer: 0, where: "GlobalID IN ('\(globalID)')").isEmpty, "a dry run sent nothing")

        let synced = try await sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(outcomes(synced.json) == ["added", "updated"])
        let held = try await SampleFixture.held(by: server, layer: 0, where: "GlobalID IN ('\(globalID)')")
        #expect(held.count == 1)
        #expect(held.first?["name"]?.string == "Heron cove")
        #expect(try await SampleFixture.held(by: server, layer: 1, where: "OBJECTID = 3").first?["NAME"]?.string == "Cumbria")

        // Nothing waits; a second sync sends nothing.
        let again = try await sync()
        #expect(again.status == 0)
        #expect(outcomes(again.json).isEmpty)
        #expect(try await SampleFixture.held(by: server, layer: 0, where: "GlobalID IN ('\(globalID)')").count == 1)

        // The area's packages are as downloaded; the place is in its fresh copies, offline, under
        // the server's object id, and the synced edits are folded into them.
        server.stop()
        let verify = try await CLI.runAsync(["verify"] + common)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let serverID = try #require(held.first?["OBJECTID"]?.int64)
        let shown = try await CLI.runAsync(["feature", "update"] + area + ["--layer", "Places", "--id", String(serverID), "--set", "name=Heron point"] + common)
        #expect(shown.status == 0, "the synced place is found in the area: \(shown.stderr)")
        let list = try await CLI.runAsync(["edits", "list", "--all", "--json"] + common)
        let left = ((try json(list.stdout)["areas"] as? [[String: Any]]) ?? []).flatMap { ($0["edits"] as? [[String: Any]]) ?? [] }
        #expect(left.count == 1 && left.first?["status"] as? String == "pending", "only the new change is left: \(list.stdout)")
    }

    @Test func anAnswerCutAfterTheServerAppliedTheEditsAddsNothingTwice() async throws {
        try await downloaded()
        let globalID = try await addPlace("Heron cove")
        try await SampleFixture.admin(server, "editsCut=3")

        let cut = try await sync()
        #expect(cut.status == 5, "the answer never came: the change waits")
        #expect(outcomes(cut.json) == ["waiting"])
        #expect(try await SampleFixture.held(by: server, layer: 0, where: "GlobalID IN ('\(globalID)')").count == 1, "the server applied it")

        // Answers still cut: the add is found on the server and not sent again.
        let found = try await sync()
        #expect(found.status == 0, "\(found.stderr)")
        #expect(outcomes(found.json) == ["alreadyThere"])
        #expect(try await SampleFixture.held(by: server, layer: 0, where: "GlobalID IN ('\(globalID)')").count == 1)
    }

    @Test func aChangeTheServerRefusesStaysMarkedWithItsReason() async throws {
        try await downloaded()
        // A place of the area deleted at the office meanwhile; the field worker renames it.
        let places = try await SampleFixture.held(by: server, layer: 0, where: "name = 'Portland'")
        let objectID = try #require(places.first?["OBJECTID"]?.int64)
        let renamed = try await CLI.runAsync(["feature", "update"] + area + ["--layer", "Places", "--id", String(objectID), "--set", "name=Renamed"] + common)
        try #require(renamed.status == 0, "\(renamed.stderr)")
        let added = try await addPlace("Heron cove")
        try await SampleFixture.admin(server, "officeDelete=\(objectID)")

        let refused = try await sync()
        #expect(refused.status == 6)
        #expect(outcomes(refused.json) == ["refused", "added"])
        let reasons = ((refused.json["areas"] as? [[String: Any]]) ?? []).flatMap { ($0["changes"] as? [[String: Any]]) ?? [] }.compactMap { $0["reason"] as? String }
        #expect(reasons == ["Unable to find feature."])
        #expect(try await SampleFixture.held(by: server, layer: 0, where: "GlobalID IN ('\(added)')").count == 1, "the good change landed beside the refused one")

        // Kept, marked, with the reason, until the user discards it.
        let list = try await CLI.runAsync(["edits", "list"] + common)
        #expect(list.stdout.contains("refused: Unable to find feature."))
        let diff = try await CLI.runAsync(["edits", "diff"] + common)
        #expect(diff.status == 6)
        let discard = try await CLI.runAsync(["edits", "discard"] + area + ["1"] + common)
        #expect(discard.status == 0, "\(discard.stderr)")
        #expect(try await sync().status == 0)
    }

    @Test func aServerErrorOrAnHTMLAnswerLeavesEveryChangeWaiting() async throws {
        try await downloaded()
        let globalID = try await addPlace("Heron cove")
        for fault in ["status=500&count=0", "hangup"] {
            try await SampleFixture.admin(server, "reset&" + fault)
            let failed = try await sync()
            #expect(failed.status == 5, "\(fault)")
            #expect(outcomes(failed.json) == ["waiting"], "\(fault)")
        }
        try await SampleFixture.admin(server, "reset")
        #expect(try await SampleFixture.held(by: server, layer: 0, where: "GlobalID IN ('\(globalID)')").isEmpty)
        let synced = try await sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try await SampleFixture.held(by: server, layer: 0, where: "GlobalID IN ('\(globalID)')").count == 1)
    }

    /// kill -9 at twenty moments during saves and twenty during syncs, then one sync to the end:
    /// the server holds every edit the journal holds exactly once, every save reported among them.
    /// The moments are spread over the time a save and a sync take on this machine now.
    @Test func killedMidSaveOrMidSyncTheServerHoldsEveryEditExactlyOnce() async throws {
        try await downloaded()
        func timed(_ arguments: [String]) async throws -> Int {
            let started = ContinuousClock.now
            let run = try await CLI.runAsync(arguments + common)
            try #require(run.status == 0, "\(run.stderr)")
            return max(Int((ContinuousClock.now - started) / .milliseconds(1)), 50)
        }
        let save = try await timed(["feature", "add"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "name=measured"])
        let syncing = try await timed(["edits", "sync"])
        var reported: Set<String> = ["measured"]
        func killed(_ arguments: [String], within milliseconds: Int, output: String) async throws -> String {
            let pid = try CleanSpawn.start(CLI.executable.path, arguments + common, output: output)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...(milliseconds * 6 / 5))))
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(10)) }
            return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }
        for run in 0..<20 {
            let said = try await killed(["feature", "add"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "name=run \(run)"],
                                        within: save, output: dataDir + "/save-\(run).out")
            if said.hasPrefix("Saved edit") { reported.insert("run \(run)") }
            _ = try await killed(["edits", "sync"], within: syncing, output: dataDir + "/sync-\(run).out")
        }
        let last = try await sync()
        #expect(last.status == 0, "\(last.stderr)")
        let list = try await CLI.runAsync(["edits", "list", "--json"] + common)
        let waiting = ((try json(list.stdout)["areas"] as? [[String: Any]]) ?? []).flatMap { ($0["edits"] as? [[String: Any]]) ?? [] }
        #expect(waiting.isEmpty, "nothing waits: \(list.stdout)")
        let names = (["measured"] + (0..<20).map { "run \($0)" })
        let held = try await SampleFixture.held(by: server, layer: 0, where: "name IN (\(names.map { "'\($0)'" }.joined(separator: ", ")))")
            .compactMap { $0["name"]?.string }
        // Every save reported is there once; one killed before it could say so is there once or not at all.
        for name in names {
            let count = held.filter { $0 == name }.count
            #expect(reported.contains(name) ? count == 1 : count <= 1, "\(name) is on the server \(count) times")
        }
    }

    /// A layer the service makes read-only after the area was downloaded: the sync says so per
    /// change, from the layer's own capabilities, and keeps the edit.
    @Test func aLayerMadeReadOnlyOnTheServiceRefusesItsChangesInOneSentence() async throws {
        try await downloaded()
        _ = try await addPlace("Heron cove")
        try await SampleFixture.admin(server, "readOnly")
        let refused = try await sync()
        #expect(refused.status == 6)
        let reasons = ((refused.json["areas"] as? [[String: Any]]) ?? []).flatMap { ($0["changes"] as? [[String: Any]]) ?? [] }.compactMap { $0["reason"] as? String }
        #expect(reasons == ["Places is read-only on its service: features cannot be added (it allows query, sync)."])
    }

    /// Back in coverage, the sync brings the server's own changes down: a colleague renamed a place
    /// of the area and added one beside it; after the sync the area shows both, offline, and the
    /// synced edits are folded into its fresh copies (the journal is empty, the place not drawn twice).
    @Test func theServersChangesComeDownIntoTheAreaAfterASync() async throws {
        try await downloaded()
        let portland = try #require(try await SampleFixture.held(by: server, layer: 0, where: "name = 'Portland'").first?["OBJECTID"]?.int64)
        _ = try await addPlace("Heron cove")
        try await SampleFixture.admin(server, "officeEdit=\(portland)")
        let synced = try await sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        let changes = ((synced.json["areas"] as? [[String: Any]]) ?? []).compactMap { $0["serverChanges"] as? String }
        #expect(changes == ["The server's changes came down: 2 layers fetched again."])
        server.stop()
        let offline = try await CLI.runAsync(["identify"] + area + ["--at=-70.2589,43.6574", "--zoom", "14", "--json"] + common)
        #expect(offline.stdout.contains("Renamed at the office 1") && offline.stdout.contains("Added at the office 1"), "\(offline.stdout)")
        let heron = try await CLI.runAsync(["identify"] + area + ["--at=-70.2,43.7", "--zoom", "14", "--json"] + common)
        let fields = try #require(try json(heron.stdout)["features"] as? [[String: Any]])
        #expect(fields.filter { ($0["title"] as? String)?.contains("Heron cove") == true }.count == 1, "drawn once: \(heron.stdout)")
        let list = try await CLI.runAsync(["edits", "list", "--all", "--json"] + common)
        let left = ((try json(list.stdout)["areas"] as? [[String: Any]]) ?? []).flatMap { ($0["edits"] as? [[String: Any]]) ?? [] }
        #expect(left.isEmpty, "the synced edits are in the fresh copies now")
    }

    /// A place renamed here and at the office since the download: held, side by side, until the user
    /// keeps theirs (`--prefer mine`) or takes the server's (`--prefer theirs`); a field changed only
    /// here goes either way.
    @Test(arguments: [EditSync.ConflictPolicy.mine, .theirs])
    func aChangeTheServerMadeTooIsHeldUntilTheUserChooses(_ prefer: EditSync.ConflictPolicy) async throws {
        try await downloaded()
        let portland = try #require(try await SampleFixture.held(by: server, layer: 0, where: "name = 'Portland'").first?["OBJECTID"]?.int64)
        let renamed = try await CLI.runAsync(["feature", "update"] + area + ["--layer", "Places", "--id", String(portland), "--set", "name=Portland Harbor",
                                             "--set", "population=70000"] + common)
        try #require(renamed.status == 0, "\(renamed.stderr)")
        try await SampleFixture.admin(server, "officeEdit=\(portland)")

        let held = try await sync()
        #expect(held.status == 6)
        #expect(outcomes(held.json) == ["conflict"])
        let change = try #require(((held.json["areas"] as? [[String: Any]]) ?? []).first.flatMap { ($0["changes"] as? [[String: Any]])?.first })
        let conflicts = try #require(change["conflicts"] as? [[String: Any]])
        #expect(conflicts.count == 1 && conflicts.first?["field"] as? String == "name")
        #expect(conflicts.first?["mine"] as? String == "Portland Harbor" && conflicts.first?["theirs"] as? String == "Renamed at the office 1"
                && conflicts.first?["was"] as? String == "Portland")
        #expect(try await SampleFixture.held(by: server, layer: 0, where: "OBJECTID = \(portland)").first?["population"] != .number(70000), "nothing sent")
        let list = try await CLI.runAsync(["edits", "list"] + common)
        #expect(list.stdout.contains("refused: Changed on the server too: name is “Portland Harbor” here"), "\(list.stdout)")
        let shown = try await CLI.runAsync(["edits", "show", "1"] + area + common)
        #expect(shown.stdout.contains("Status    refused: Changed on the server too") && shown.stdout.contains("name        Portland Harbor  Portland"),
                "the value beside the one it replaced: \(shown.stdout)")

        let chosen = try await sync(["--prefer", prefer.rawValue])
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(outcomes(chosen.json) == ["updated"])
        let now = try #require(try await SampleFixture.held(by: server, layer: 0, where: "OBJECTID = \(portland)").first)
        #expect(now["name"]?.string == (prefer == .mine ? "Portland Harbor" : "Renamed at the office 1"))
        #expect(now["population"] == .number(70000), "the field not in conflict goes either way")
    }

    /// A pin becomes a place of the area, its title in the layer's display field, and goes up with the sync.
    @Test func aPinSharedAsAFeatureReachesTheServer() async throws {
        try await downloaded()
        let pinned = try await CLI.runAsync(["pins", "add", "--at=-70.21,43.69", "--title", "Osprey nest", "--json", "--data-dir", dataDir])
        let id = try #require((try json(pinned.stdout)["properties"] as? [String: Any])?["id"] as? String)
        let shared = try await CLI.runAsync(["pins", "share", String(id.prefix(8))] + area + ["--layer", "Places", "--set", "population=0", "--json"] + common)
        #expect(shared.status == 0, "\(shared.stderr)")
        #expect((try json(shared.stdout)["attributes"] as? [String: Any])?["name"] as? String == "Osprey nest")
        #expect(try await sync().status == 0)
        let held = try await SampleFixture.held(by: server, layer: 0, where: "name = 'Osprey nest'")
        #expect(held.count == 1 && held.first?["population"] == .number(0))
        let missing = try await CLI.runAsync(["pins", "share", "nosuch"] + area + ["--layer", "Places"] + common)
        #expect(missing.status == 1 && missing.stderr.contains("No pin has the id “nosuch”."))
    }

    /// A photo attached offline goes up after its feature, once, even when the server's answer to
    /// both is cut off; what cannot be attached (a FIFO, a file over 10 MiB) is refused before
    /// anything is saved.
    @Test func anAttachmentReachesTheServerOnceAfterItsFeature() async throws {
        try await downloaded()
        let photo = dataDir + "/heron.jpg", big = dataDir + "/big.bin", fifo = dataDir + "/pipe"
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: URL(fileURLWithPath: photo))
        try Data(count: (10 << 20) + 1).write(to: URL(fileURLWithPath: big))
        #expect(mkfifo(fifo, 0o600) == 0)
        for (file, why) in [(fifo, "pipe cannot be attached: it is not a regular file."), (big, "an attachment may be.")] {
            let refused = try await CLI.runAsync(["feature", "add"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "name=x", "--attach", file] + common)
            #expect(refused.status == 1 && refused.stderr.contains(why), "\(refused.stderr)")
        }
        #expect(try await CLI.runAsync(["edits", "diff"] + common).status == 0, "nothing was saved")
        let added = try await CLI.runAsync(["feature", "add", "--json"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "name=Heron cove",
                                                                                 "--attach", photo] + common)
        try #require(added.status == 0, "\(added.stderr)")
        let globalID = try #require(try json(added.stdout)["globalId"] as? String)

        // Every answer cut: applyEdits (retried, as a GlobalID makes it safe) and addAttachment (never
        // retried: the server would keep it twice).
        try await SampleFixture.admin(server, "editsCut=100")
        let cut = try await sync()
        #expect(cut.status == 5, "\(cut.json)")
        try await SampleFixture.admin(server, "reset")
        let again = try await sync()
        #expect(again.status == 0, "\(again.stderr)")
        let attachments = ((again.json["areas"] as? [[String: Any]]) ?? []).flatMap { ($0["attachments"] as? [[String: Any]]) ?? [] }
        #expect(attachments.compactMap { $0["outcome"] as? String } == ["alreadyThere"], "\(attachments)")

        let objectID = try #require(try await SampleFixture.held(by: server, layer: 0, where: "GlobalID IN ('\(globalID)')").first?["OBJECTID"]?.int64)
        let base = server.baseURL.absoluteString + "/arcgis/rest/services/Explore_Maine_Places/FeatureServer/0/\(objectID)/attachments"
        let list = try JSONValue(parsing: try await SampleFixture.fetch(base + "?f=json"))
        let infos = list["attachmentInfos"]?.array ?? []
        #expect(infos.count == 1 && infos.first?["name"]?.string == "heron.jpg" && infos.first?["contentType"]?.string == "image/jpeg")
        let id = try #require(infos.first?["id"]?.int64)
        #expect(try await SampleFixture.fetch(base + "/\(id)") == bytes, "the bytes as attached")
    }

    /// An area drawn from its own geodatabase replica (Caribou): after the sync, `synchronizeReplica`
    /// brings down what changed on the server since the replica's generation — a colleague's rename
    /// and new place, and the place added here — laid over the file, which stays as downloaded; the
    /// generation reached is kept, so the next sync brings nothing twice.
    @Test func aReplicasSyncBringsTheServersChangesDownFromItsGeneration() async throws {
        let download = try await CLI.runAsync(["download", "Caribou"] + common)
        try #require(download.status == 0, "\(download.stderr)")
        let caribou = ["--area", "Caribou"]
        let town = try #require(try await SampleFixture.held(by: server, layer: 0, where: "name = 'Caribou'").first)
        let objectID = try #require(town["OBJECTID"]?.int64)
        let located = try JSONValue(parsing: try await SampleFixture.fetch(server.baseURL.absoluteString
            + "/arcgis/rest/services/Explore_Maine_Places/FeatureServer/0/query?where=OBJECTID%3D\(objectID)&returnGeometry=true&f=json"))
        let caribouPoint = located["features"]?[0]?["geometry"].flatMap { geometry in
            geometry["x"]?.double.flatMap { x in geometry["y"]?.double.map { "\(x),\($0)" } }
        }
        let added = try await CLI.runAsync(["feature", "add"] + caribou + ["--layer", "Places", "--at=-68.0,46.85", "--set", "name=Aroostook gauge"] + common)
        try #require(added.status == 0, "\(added.stderr)")
        try await SampleFixture.admin(server, "officeEdit=\(objectID)")

        let synced = try await sync(["--area", "Caribou"])
        #expect(synced.status == 0, "\(synced.stderr)")
        let changes = ((synced.json["areas"] as? [[String: Any]]) ?? []).compactMap { $0["serverChanges"] as? String }
        #expect(changes.count == 1 && changes[0].hasPrefix("The server's changes came down: 3 features (server generation "), "\(changes)")
        // The generation reached is kept: the next sync brings only what changed after it.
        let second = try await CLI.runAsync(["feature", "add"] + caribou + ["--layer", "Places", "--at=-68.01,46.86", "--set", "name=Second gauge"] + common)
        try #require(second.status == 0, "\(second.stderr)")
        let again = try await sync(["--area", "Caribou"])
        let next = ((again.json["areas"] as? [[String: Any]]) ?? []).compactMap { $0["serverChanges"] as? String }
        #expect(next.count == 1 && next[0].hasPrefix("The server's changes came down: 1 feature (server generation "), "\(next)")
        server.stop()
        let verify = try await CLI.runAsync(["verify"] + common)
        #expect(verify.status == 0, "the replica's file is as downloaded: \(verify.stdout)\(verify.stderr)")
        let point = try #require(caribouPoint)
        let office = try await CLI.runAsync(["identify"] + caribou + ["--at=\(point)", "--zoom", "14"] + common)
        #expect(office.stdout.contains("Renamed at the office 1") && office.stdout.contains("Added at the office 1"), "\(office.stdout)")
        let mine = try await CLI.runAsync(["identify"] + caribou + ["--at=-68.0,46.85", "--zoom", "14", "--json"] + common)
        let titles = ((try json(mine.stdout)["features"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
        #expect(titles.filter { $0.contains("Aroostook gauge") }.count == 1, "drawn once, from the server's changes: \(titles)")
        let left = try await CLI.runAsync(["edits", "list", "--all", "--json"] + common)
        #expect(((try json(left.stdout)["areas"] as? [[String: Any]]) ?? []).allSatisfy { (($0["edits"] as? [Any]) ?? []).isEmpty }, "\(left.stdout)")
    }

    @Test func theTextReportNamesEachChange() async throws {
        try await downloaded()
        _ = try await addPlace("Heron cove")
        let run = try await CLI.runAsync(["edits", "sync"] + common)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Greater Portland: 1 change"))
        #expect(run.stdout.contains("added:   add Places {"))
        #expect(run.stdout.contains("Synced 1 of 1 change."))
    }
}
