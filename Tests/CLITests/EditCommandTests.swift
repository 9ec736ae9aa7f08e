import Editing
import Foundation
import PortalFixtures
import SamplePortal
import Testing

/// `mapbook feature` and `mapbook edits`: edits of a downloaded area saved offline, checked against
/// the layer's fields, listed, undone; and none lost or doubled when the process is killed mid-save.
@Suite("mapbook feature and edits", .serialized)
final class EditCommandTests {
    let server: SamplePortal
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-cli-edits-\(UUID())").path
    var common: [String] { ["--portal", server.baseURL.absoluteString, "--data-dir", dataDir] }

    init() throws { server = try SampleFixture.start() }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: dataDir)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The area downloaded, then the portal stopped: everything after is offline.
    func downloadedThenOffline() async throws {
        let download = try await CLI.runAsync(["download", "Greater Portland"] + common)
        #expect(download.status == 0, "\(download.stderr)")
        server.stop()
    }

    func listed() async throws -> [[String: Any]] {
        let list = try await CLI.runAsync(["edits", "list", "--json"] + common)
        #expect(list.status == 0, "\(list.stderr)")
        let areas = try #require(try json(list.stdout)["areas"] as? [[String: Any]])
        return areas.flatMap { $0["edits"] as? [[String: Any]] ?? [] }
    }

    @Test func anEditSavedOfflineIsListedAndTheAreasFilesStayAsDownloaded() async throws {
        try await downloadedThenOffline()
        let added = try await CLI.runAsync(["feature", "add", "--area", "Greater Portland", "--layer", "places", "--at=-70.2,43.7",
                                            "--set", "name=Heron cove \u{1B}[31m", "--json"] + common)
        #expect(added.status == 0, "\(added.stderr)")
        let edit = try json(added.stdout)
        #expect(edit["edit"] as? String == "add" && edit["layer"] as? String == "Places" && edit["status"] as? String == "pending")
        #expect((edit["globalId"] as? String)?.hasPrefix("{") == true)
        #expect((edit["serviceLayer"] as? String)?.hasSuffix("/FeatureServer/0") == true)
        #expect((edit["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [-70.2, 43.7])
        #expect((edit["attributes"] as? [String: String])?["name"] == "Heron cove", "shown sanitized: the escape sequence goes")
        let changed = try await CLI.runAsync(["feature", "update", "--area", "Greater Portland", "--layer", "Counties", "--id", "3",
                                              "--set", "NAME=Cumbria"] + common)
        #expect(changed.status == 0 && changed.stdout.hasPrefix("Saved edit 2: change 3 of Counties."), "\(changed.stderr)")
        // The area shows its edits at once, offline: the new place identified, the county renamed.
        let identify = try await CLI.runAsync(["identify", "--area", "Greater Portland", "--at=-70.2,43.7", "--zoom", "14"] + common)
        #expect(identify.stdout.hasPrefix("Heron cove  (Places)"), "\(identify.stdout)\(identify.stderr)")
        let county = try await CLI.runAsync(["identify", "--area", "Greater Portland", "--at=-70.2589,43.6574", "--zoom", "11"] + common)
        #expect(county.stdout.contains("Cumbria  (Counties)") && !county.stdout.contains("Cumberland  (Counties)"), "\(county.stdout)")
        let text = try await CLI.runAsync(["edits", "list"] + common)
        #expect(text.stdout.hasPrefix("Greater Portland: 2 edits not synced\n"), "\(text.stdout)")
        #expect(try await listed().compactMap { $0["number"] as? Int } == [1, 2])
        // Undo, redo, discard: by number, in the order saved.
        let undo = try await CLI.runAsync(["edits", "undo", "--area", "Greater Portland"] + common)
        #expect(undo.stdout.hasPrefix("Undid edit 2"), "\(undo.stdout)\(undo.stderr)")
        #expect(try await listed().count == 1)
        _ = try await CLI.runAsync(["edits", "redo", "--area", "Greater Portland"] + common)
        let discard = try await CLI.runAsync(["edits", "discard", "1", "--area", "Greater Portland"] + common)
        #expect(discard.status == 0, "\(discard.stderr)")
        #expect(try await listed().compactMap { $0["number"] as? Int } == [2])
        let readd = try await CLI.runAsync(["feature", "add", "--area", "Greater Portland", "--layer", "Places", "--at=-70.2,43.7", "--set", "name=Heron cove"] + common)
        #expect(readd.stdout.hasPrefix("Saved edit 3:"), "\(readd.stdout)\(readd.stderr)")
        // A feature added here is changed by its own id (-N for edit N) before any sync.
        let renamed = try await CLI.runAsync(["feature", "update", "--area", "Greater Portland", "--layer", "Places", "--id", "-3",
                                              "--set", "name=Heron point"] + common)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let again = try await CLI.runAsync(["identify", "--area", "Greater Portland", "--at=-70.2,43.7", "--zoom", "14"] + common)
        #expect(again.stdout.hasPrefix("Heron point  (Places)"), "\(again.stdout)")
        // The downloaded files are as they were.
        let verify = try await CLI.runAsync(["verify"] + common)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        // Removing the area's packages keeps its edits, and says so.
        let remove = try await CLI.runAsync(["remove", "Greater Portland"] + common)
        #expect(remove.stdout.contains("Its 3 edits not synced stay on this device"), "\(remove.stdout)\(remove.stderr)")
        #expect(try await listed().count == 3)
    }

    @Test func anEditTheLayerCannotTakeIsOneSentenceAndNothingIsSaved() async throws {
        try await downloadedThenOffline()
        let area = ["--area", "Greater Portland"]
        let cases: [([String], String, Int32)] = [
            (["feature", "add"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "nosuch=1"], "Places has no field “nosuch”", 1),
            (["feature", "add"] + area + ["--layer", "Roads", "--at=-70.2,43.7"], "Greater Portland has no layer “Roads”; it has", 1),
            (["feature", "add"] + area + ["--layer", "Counties", "--at=-70.2,43.7"], "Counties holds polygons; the shape given is not one.", 1),
            (["feature", "add"] + area + ["--layer", "Places", "--geometry", #"{"type":"Point","coordinates":[-200,43]}"#], "not a GeoJSON geometry", 1),
            (["feature", "add"] + area + ["--layer", "Places", "--geometry", "{"], "The shape is not JSON", 1),
            (["feature", "delete"] + area + ["--layer", "Counties", "--id", "999"], "Counties in Greater Portland has no feature with object id 999.", 1),
            (["feature", "add"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "name=a", "--set", "NAME=b"], "is set twice", 1),
            (["feature", "add"] + area + ["--layer", "Places"], "Give where the feature is", 64),
            (["feature", "add"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "name"], "--set takes FIELD=VALUE", 64),
            (["edits", "discard", "7"] + area, "No edit 7 waits in Greater Portland", 1),
        ]
        for (arguments, sentence, status) in cases {
            let result = try await CLI.runAsync(arguments + common)
            #expect(result.status == status && result.stderr.contains(sentence), "\(arguments): \(result.status) \(result.stderr)")
        }
        let refused = try await CLI.runAsync(["feature", "add", "--json"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "nosuch=1"] + common)
        #expect(try (json(refused.stdout)["error"] as? [String: Any])?["kind"] as? String == "invalidEdit")
        #expect(try await listed().isEmpty)
    }

    /// Edits carried on a stick: exported on one device, imported on another (twice: nothing
    /// doubles), shown there; a file that is not one is one sentence.
    @Test func editsExportedOnOneDeviceShowOnAnotherAndImportTwiceChangesNothing() async throws {
        let other = dataDir + "-other"
        defer { try? FileManager.default.removeItem(atPath: other) }
        let otherCommon = ["--portal", server.baseURL.absoluteString, "--data-dir", other]
        let second = try await CLI.runAsync(["download", "Greater Portland"] + otherCommon)
        #expect(second.status == 0, "\(second.stderr)")
        try await downloadedThenOffline()
        let area = ["--area", "Greater Portland"]
        _ = try await CLI.runAsync(["feature", "add"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "name=Heron cove"] + common)
        let renamed = try await CLI.runAsync(["feature", "update"] + area + ["--layer", "Places", "--id", "-1", "--set", "name=Heron point"] + common)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let file = dataDir + "/stick/edits.json"
        try FileManager.default.createDirectory(atPath: dataDir + "/stick", withIntermediateDirectories: true)
        let export = try await CLI.runAsync(["edits", "export", file] + common)
        #expect(export.stdout == "Exported 2 edits of 1 area to \(file).\n", "\(export.stdout)\(export.stderr)")
        let first = try await CLI.runAsync(["edits", "import", file] + otherCommon)
        #expect(first.stdout == "Greater Portland: 2 edits imported.\n", "\(first.stdout)\(first.stderr)")
        let again = try await CLI.runAsync(["edits", "import", file] + otherCommon)
        #expect(again.stdout == "Greater Portland: 0 edits imported (2 already here).\n", "\(again.stdout)\(again.stderr)")
        let shown = try await CLI.runAsync(["identify"] + area + ["--at=-70.2,43.7", "--zoom", "14"] + otherCommon)
        #expect(shown.stdout.hasPrefix("Heron point  (Places)"), "\(shown.stdout)\(shown.stderr)")
        try Data("{\"format\":\"something else\"}".utf8).write(to: URL(fileURLWithPath: file))
        let bad = try await CLI.runAsync(["edits", "import", file] + otherCommon)
        #expect(bad.status == 1 && bad.stderr.contains("This is not a file of mapbook edits mapbook can read"), "\(bad.stderr)")
    }

    /// `edits diff`: what a sync would send, one change per feature; its status says whether
    /// anything waits (5) or was refused (6).
    @Test func editsDiffShowsWhatASyncWouldSendAndItsStatusSaysWhetherAnythingWaits() async throws {
        try await downloadedThenOffline()
        let none = try await CLI.runAsync(["edits", "diff"] + common)
        #expect(none.status == 0 && none.stdout == "Nothing waits to be synced.\n", "\(none.stdout)\(none.stderr)")
        let area = ["--area", "Greater Portland"]
        _ = try await CLI.runAsync(["feature", "add"] + area + ["--layer", "Places", "--at=-70.2,43.7", "--set", "name=Heron cove"] + common)
        _ = try await CLI.runAsync(["feature", "update"] + area + ["--layer", "Places", "--id", "-1", "--set", "name=Heron point"] + common)
        _ = try await CLI.runAsync(["feature", "update"] + area + ["--layer", "Counties", "--id", "3", "--set", "NAME=Cumbria"] + common)
        let diff = try await CLI.runAsync(["edits", "diff"] + common)
        #expect(diff.status == 5, "\(diff.stderr)")
        let lines = diff.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Greater Portland · Places → http://") == true, "\(diff.stdout)")
        #expect(lines.contains { $0.hasPrefix("+ add {") && $0.hasSuffix("at -70.20000,43.70000 (edits 1, 2)") }, "\(diff.stdout)")
        #expect(lines.contains("+     name = Heron point") && !lines.contains { $0.contains("Heron cove") }, "added then changed: one add, its last values")
        #expect(lines.contains { $0.hasPrefix("~ update 3") && $0.hasSuffix("(edit 3)") } && lines.contains("~     NAME = Cumbria"))
        #expect(lines.last == "2 changes wait to be synced.")
        let json = try await CLI.runAsync(["edits", "diff", "--json"] + common)
        let document = try self.json(json.stdout)
        #expect(document["waiting"] as? Int == 2 && document["refused"] as? Int == 0 && json.status == 5)
        // The server's refusal (as a sync will record it) is shown, and the status says so.
        let journal = try #require(FileManager.default.enumerator(atPath: dataDir)?.compactMap { $0 as? String }.first { $0.hasSuffix("/edits.sqlite") })
        try EditJournal(path: dataDir + "/" + journal).markRefused(3, reason: "Unable to find feature")
        let refused = try await CLI.runAsync(["edits", "diff"] + common)
        #expect(refused.status == 6 && refused.stdout.contains("!     refused: Unable to find feature"), "\(refused.stdout)")
    }

    /// kill -9 at twenty moments during saves: every save that said so is there exactly once, none
    /// is there twice, and the journal opens undamaged after each. The moments are spread over the
    /// time a whole save takes on this machine now (measured first), so a loaded machine still
    /// sees kills before, during and after the save.
    @Test func killedMidSaveEverySavedEditIsThereExactlyOnce() async throws {
        try await downloadedThenOffline()
        let started = ContinuousClock.now
        let first = try await CLI.runAsync(["feature", "add", "--area", "Greater Portland", "--layer", "Places", "--at=-70.2,43.7",
                                            "--set", "name=measured"] + common)
        #expect(first.status == 0, "\(first.stderr)")
        let whole = max(Int((ContinuousClock.now - started) / .milliseconds(1)), 50)
        var reported: Set<String> = ["measured"]
        for run in 0..<20 {
            let output = dataDir + "/run-\(run).out"
            let pid = try CleanSpawn.start(CLI.executable.path, ["feature", "add", "--area", "Greater Portland", "--layer", "Places", "--at=-70.2,43.7",
                                                                 "--set", "name=run \(run)"] + common, output: output)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...(whole * 6 / 5))))
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(10)) }
            if (try? String(contentsOfFile: output, encoding: .utf8))?.hasPrefix("Saved edit") == true { reported.insert("run \(run)") }
            let names = try await listed().compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String }
            #expect(reported.isSubset(of: Set(names)), "run \(run): a reported save is missing")
            #expect(names.count == Set(names).count, "run \(run): an edit is there twice")
        }
        let folder = try #require(FileManager.default.enumerator(atPath: dataDir)?.compactMap { $0 as? String }.first { $0.hasSuffix("edits.sqlite") })
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: dataDir + "/" + folder + "/..")) ?? []).contains { $0.contains("damaged") })
    }
}
