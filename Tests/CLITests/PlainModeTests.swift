import Foundation
import PortalFixtures
import SamplePortal
import Testing

/// `mapbook --plain` driven by a script through pipes, against the sample portal: the same program
/// as the full screen, in lines.
@Suite("mapbook --plain")
struct PlainModeTests {
    /// A running `mapbook --plain`: commands in, lines out.
    final class Session: @unchecked Sendable {
        let process = Process()
        private let input = Pipe(), output = Pipe()
        private let lock = NSLock()
        private var text = ""

        init(_ arguments: [String], environment extra: [String: String] = [:]) throws {
            process.executableURL = CLI.executable
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
            environment.removeValue(forKey: "MAPBOOK_TOKEN")
            environment.removeValue(forKey: "MAPBOOK_API_KEY")
            // Settings, sign-ins and remembered views of this session only, never the user's.
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-plain-home-\(UUID())").path
            environment["XDG_CONFIG_HOME"] = home + "/config"
            environment["XDG_STATE_HOME"] = home + "/state"
            environment["MAPBOOK_KEYRING"] = "0"
            process.environment = environment
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            Thread.detachNewThread { [self] in
                let handle = output.fileHandleForReading
                while true {
                    let data = handle.availableData
                    if data.isEmpty { return }
                    lock.withLock { text += String(decoding: data, as: UTF8.self) }
                }
            }
        }

        var printed: String { lock.withLock { text } }

        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

        func endInput() { try? input.fileHandleForWriting.close() }

        /// Waits until the output holds `text` (after `from` characters); returns where it ends.
        @discardableResult
        func waitFor(_ wanted: String, after from: Int = 0, timeout: TimeInterval = 60) async throws -> Int {
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                let all = printed
                let start = all.index(all.startIndex, offsetBy: min(from, all.count))
                if let range = all[start...].range(of: wanted) { return all.distance(from: all.startIndex, to: range.upperBound) }
                guard Date() < deadline, process.isRunning || printed.count != all.count else {
                    throw PlainTimeout(description: "no “\(wanted)” in:\n\(all)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    struct PlainTimeout: Error, CustomStringConvertible { let description: String }

    /// A sample portal (with `faults`), a fresh data folder, and `mapbook --plain` on them with its
    /// list printed.
    static func listed(faults: String = "") async throws -> (SamplePortal, String, Session) {
        var settings = SampleFaults()
        try settings.apply(faults)
        let server = try SampleFixture.start(faults: settings)
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-plain-\(UUID())").path
        let session = try Session(["--plain", "--portal", server.baseURL.absoluteString, "--data-dir", dataDir])
        try await session.waitFor("7. Bangor")
        return (server, dataDir, session)
    }

    @Test func listDownloadWithProgressDetailsRemoveQuit() async throws {
        var faults = SampleFaults()
        faults.bytesPerSecond = 400_000
        let server = try SampleFixture.start(faults: faults)
        defer { server.stop() }
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-plain-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let session = try Session(["--plain", "--portal", server.baseURL.absoluteString, "--data-dir", dataDir])
        defer { if session.process.isRunning { session.process.terminate() } }

        var at = try await session.waitFor("Explore Maine: 6 map areas. Type list to see them, help for the commands.")
        at = try await session.waitFor("7. Bangor — Ready, 2.0 megabytes", after: at)
        session.send("list")
        at = try await session.waitFor("1. Explore Maine — Web Map, 6 map areas", after: at)

        session.send("download 7")
        at = try await session.waitFor("Bangor: queued.", after: at)
        let started = at
        at = try await session.waitFor("Bangor downloaded, 2.0 megabytes, verified", after: at)
        let steps = session.printed.dropFirst(started).split(separator: "\n").filter { $0.hasPrefix("Bangor: downloading, ") }
        #expect(steps.count >= 3, "progress in steps of 10 %: \(steps)")
        #expect(steps.allSatisfy { $0.hasSuffix("% of 2.0 megabytes.") })
        #expect(Set(steps).count == steps.count, "each step once")

        session.send("details 7")
        at = try await session.waitFor("Size on disk      2.0 megabytes", after: at)
        session.send("remove 7")
        at = try await session.waitFor("Remove Bangor from this device? 2.0 megabytes will be deleted. It can be downloaded again. Type yes or no.", after: at)
        session.send("yes")
        at = try await session.waitFor("Removed Bangor from this device.", after: at)
        session.send("frobnicate")
        at = try await session.waitFor("Unknown command “frobnicate”. Type help for the commands.", after: at)
        session.send("details 99")
        at = try await session.waitFor("There is no row 99; the list has 7. Type list.", after: at)
        session.send("quit")
        await session.process.exited()
        #expect(session.process.terminationStatus == 0)
        // Lines for a screen reader or a log: no escape sequences, no cursor movement, no art.
        #expect(!session.printed.contains("\u{1B}") && !session.printed.contains("\r"))
        #expect(!session.printed.unicodeScalars.contains { (0x2800...0x28FF).contains($0.value) || (0x2580...0x259F).contains($0.value) })
    }

    /// `sync N` sends area N's edits, saved by another mapbook meanwhile, and says what went; `sync`
    /// every area's.
    @Test func syncInPlainMode() async throws {
        let (server, dataDir, session) = try await Self.listed()
        defer { server.stop(); try? FileManager.default.removeItem(atPath: dataDir); if session.process.isRunning { session.process.terminate() } }
        session.send("download 7")
        var at = try await session.waitFor("Bangor downloaded, 2.0 megabytes, verified")
        let common = ["--portal", server.baseURL.absoluteString, "--data-dir", dataDir]
        let added = try await CLI.runAsync(["feature", "add", "--area", "Bangor", "--layer", "Places", "--at=-68.77,44.80", "--set", "name=Stream gauge 7"] + common)
        try #require(added.status == 0, "\(added.stderr)")
        // Saved by another mapbook: the area is downloaded, so sync looks whatever the row said.
        session.send("sync 7")
        at = try await session.waitFor("Bangor: 1 change synced.", after: at)
        session.send("sync")
        at = try await session.waitFor("Bangor: no edits waited to be synced.", after: at)
        #expect(try await SampleFixture.held(by: server, layer: 0, where: "name = 'Stream gauge 7'").count == 1)
        session.send("quit")
        await session.process.exited()
        #expect(session.process.terminationStatus == 0)
    }

    /// `add point`, `set`, `save` in a downloaded area's map: the form's fields said in a line,
    /// each refusal said on its field, the edit saved, then synced by itself (online).
    @Test func addAPointThroughItsFormInPlainMode() async throws {
        let (server, dataDir, session) = try await Self.listed()
        defer { server.stop(); try? FileManager.default.removeItem(atPath: dataDir); if session.process.isRunning { session.process.terminate() } }
        session.send("download 7")
        var at = try await session.waitFor("Bangor downloaded, 2.0 megabytes, verified")
        session.send("add point Places")
        at = try await session.waitFor("Open a downloaded area's map first: open N.", after: at)
        session.send("open 7")
        at = try await session.waitFor("Map of Bangor (", after: at)
        session.send("add point Counties at -68.77,44.80")
        at = try await session.waitFor("Counties holds polygons, not points", after: at)
        session.send("add point Places at -68.77,44.80")
        at = try await session.waitFor("New feature in Places at 44.80000 north 68.77000 west. Place name *: empty; Size: “—”", after: at)
        #expect(session.printed.contains("Arcade expressions are not evaluated here; left out: County (when shown)."))
        session.send("save")
        at = try await session.waitFor("Not saved: Place name is required.", after: at)
        session.send("set size Hamlet")
        at = try await session.waitFor("Not saved: Size must be one of City, Town, Village.", after: at)
        session.send("set name Stream gauge 9")
        session.send("set size village")
        // A FIFO is no file to attach: refused on the form, nothing saved; a photo goes with the place.
        let fifo = dataDir + "/gauge.fifo", photo = dataDir + "/gauge.jpg"
        try #require(mkfifo(fifo, 0o600) == 0)
        try Data(repeating: 0xFF, count: 2_048).write(to: URL(fileURLWithPath: photo))
        session.send("set attach \(fifo)")
        session.send("save")
        at = try await session.waitFor("Not saved: ", after: at)
        #expect(session.printed.contains("gauge.fifo is not a regular file") || session.printed.contains("not a regular file"), "\(session.printed.suffix(600))")
        session.send("set attach \(photo)")
        session.send("save")
        at = try await session.waitFor("Saved a new feature in Places. 1 edit not synced.", after: at)
        // The place and its file.
        at = try await session.waitFor("Bangor: 2 changes synced.", after: at)
        let held = try await SampleFixture.held(by: server, layer: 0, where: "name = 'Stream gauge 9'")
        #expect(held.count == 1 && held.first?["size_class"]?.string == "Village", "\(held)")
        let files = try await SampleFixture.fetch(server.baseURL.absoluteString
            + "/arcgis/rest/services/Explore_Maine_Places/FeatureServer/0/\(held.first?["OBJECTID"]?.int64 ?? 0)/attachments?f=json")
        #expect(String(decoding: files, as: UTF8.self).contains("gauge.jpg"), "the photo went with the place")
        session.send("save")
        at = try await session.waitFor("There is no form open.", after: at)
        session.send("quit")
        await session.process.exited()
        #expect(session.process.terminationStatus == 0)
    }

    /// A change the office made too is held by the sync, named with both values; `sync N theirs`
    /// asks, then takes the server's value there and still sends the rest.
    @Test func aConflictIsSettledInPlainModeAfterAsking() async throws {
        let (server, dataDir, session) = try await Self.listed()
        defer { server.stop(); try? FileManager.default.removeItem(atPath: dataDir); if session.process.isRunning { session.process.terminate() } }
        session.send("download 5")
        var at = try await session.waitFor("Greater Portland downloaded")
        let common = ["--portal", server.baseURL.absoluteString, "--data-dir", dataDir]
        let portland = try #require(try await SampleFixture.held(by: server, layer: 0, where: "name = 'Portland'").first?["OBJECTID"]?.int64)
        let renamed = try await CLI.runAsync(["feature", "update", "--area", "Greater Portland", "--layer", "Places", "--id", String(portland),
                                              "--set", "name=Portland Harbor", "--set", "population=70000"] + common)
        try #require(renamed.status == 0, "\(renamed.stderr)")
        try await SampleFixture.admin(server, "officeEdit=\(portland)")
        session.send("sync 5")
        at = try await session.waitFor("Greater Portland: 0 changes synced; 1 refused: Changed on the server too: name is “Portland Harbor” here", after: at)
        session.send("sync 5 theirs")
        at = try await session.waitFor("Take the server's values in the change the server changed too?", after: at)
        session.send("yes")
        at = try await session.waitFor("Greater Portland: 1 change synced.", after: at)
        let now = try #require(try await SampleFixture.held(by: server, layer: 0, where: "OBJECTID = \(portland)").first)
        #expect(now["name"]?.string == "Renamed at the office 1" && now["population"] == .number(70000), "\(now)")
        session.send("sync 5 mine")
        at = try await session.waitFor("No change of this area waits on a conflict with the server.", after: at)
        session.send("quit")
        await session.process.exited()
        #expect(session.process.terminationStatus == 0)
    }

    /// At the end of the input, the downloads under way finish, then mapbook quits.
    @Test func theEndOfTheInputWaitsForDownloads() async throws {
        let (server, dataDir, session) = try await Self.listed()
        defer { server.stop(); try? FileManager.default.removeItem(atPath: dataDir); if session.process.isRunning { session.process.terminate() } }
        session.send("download 2")
        session.endInput()
        await session.process.exited()
        #expect(session.process.terminationStatus == 0)
        #expect(session.printed.contains("Acadia downloaded, 2.0 megabytes, verified"))
    }

    /// SIGTERM or SIGINT during a download: the download pauses (to resume next time) and mapbook
    /// ends with 128 + the signal, never 0 with the area partial.
    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalMidDownloadExitsWithItsStatus(signal: Int32) async throws {
        let (server, dataDir, session) = try await Self.listed(faults: "bandwidth=64k")
        defer { server.stop(); try? FileManager.default.removeItem(atPath: dataDir); if session.process.isRunning { session.process.terminate() } }
        session.send("download 2")
        try await session.waitFor("Acadia: downloading")
        kill(session.process.processIdentifier, signal)
        await session.process.exited()
        #expect(session.process.terminationStatus == 128 + signal, "\(session.printed)")
        #expect(!session.printed.contains("Acadia downloaded"))
    }

    /// A script of commands piped in at once prints what the same commands print typed one at a
    /// time, each after the last has settled: every answer comes before the next command runs, and
    /// the end of the input waits for what is still on its way.
    @Test func aScriptPipedAtOnceSaysWhatTypingItSays() async throws {
        let script = ["list", "details 2", "open 2", "back", "maps search topographic", "maps", "details 3",
                      "ruler -68.7726,44.8012 -68.2039,44.3876", "remove 2", "download 3", "remove 3", "yes", "list"]
        // Typed: each line once the output has been still for a while, and once the answer that
        // comes late (a map drawn, a download done) is in: a loaded machine can be still for long.
        let lateAnswers = ["open 2": "Type back to leave it.", "download 3": "Boston downloaded"]
        let (server, typedData, typed) = try await Self.listed()
        defer { server.stop(); try? FileManager.default.removeItem(atPath: typedData) }
        for line in script {
            typed.send(line)
            if let answer = lateAnswers[line] { try await typed.waitFor(answer) }
            var last = typed.printed
            while true {
                try await Task.sleep(for: .milliseconds(700))
                if typed.printed == last { break }
                last = typed.printed
            }
        }
        typed.endInput()
        await typed.process.exited()
        // Piped: everything at once, then the end of the input.
        let piped = try Session(["--plain", "--portal", server.baseURL.absoluteString, "--data-dir", typedData + "-piped"])
        defer { try? FileManager.default.removeItem(atPath: typedData + "-piped") }
        piped.send(script.joined(separator: "\n"))
        piped.endInput()
        await piped.process.exited()
        // Progress lines depend on the speed of the moment, and "Online." may come before or after
        // the web map's first line; from the list on, everything must match.
        func said(_ text: String) -> [String] {
            let lines = text.split(separator: "\n").map(String.init).filter { !$0.contains("downloading,") && !$0.contains("Downloading ") }
            return Array(lines.drop { !$0.hasPrefix("1. ") })
        }
        #expect(said(piped.printed) == said(typed.printed), "piped:\n\(piped.printed)\ntyped:\n\(typed.printed)")
        #expect(piped.printed.contains("1. Maine Topographic") && piped.printed.contains("Ruler: "))
        #expect(piped.printed.contains("Boston downloaded") && piped.printed.contains("Removed Boston from this device."), "\(piped.printed)")
        #expect(piped.process.terminationStatus == 0)
    }

    /// `ruler`: the distance along points, as the map's ruler says it, checked against haversine.
    @Test func theRulerInPlainMode() async throws {
        let server = try SampleFixture.start()
        defer { server.stop() }
        let session = try Session(["--plain", "--portal", server.baseURL.absoluteString])
        defer { if session.process.isRunning { session.process.terminate() } }
        try await session.waitFor("7. Bangor")
        let (a, b) = ((-68.7726, 44.8012), (-68.2039, 44.3876))
        session.send("ruler \(a.0),\(a.1) \(b.0),\(b.1)")
        let end = try await session.waitFor("bearing")
        try await session.waitFor("\n", after: end)
        let line = session.printed.split(separator: "\n").last { $0.hasPrefix("Ruler: ") } ?? ""
        let parts = line.dropFirst("Ruler: ".count).split(separator: " ")
        let unit: Double = ["kilometres": 1000, "miles": 1609.344][String(parts[1].dropLast())] ?? 0
        let shown = (Double(parts[0]) ?? 0) * unit
        let r = Double.pi / 180
        let h = pow(sin((b.1 - a.1) * r / 2), 2) + cos(a.1 * r) * cos(b.1 * r) * pow(sin((b.0 - a.0) * r / 2), 2)
        let reference = 2 * 6_371_008.8 * asin(h.squareRoot())
        #expect(abs(shown - reference) < reference * 0.005 + 0.05 * unit, "\(line)")
        #expect(line.hasSuffix("SE"))
        session.send("ruler -68.2,44.39")
        try await session.waitFor("ruler needs two or more points")
        session.send("quit")
        await session.process.exited()
    }

    /// `directions A to B`: names found with the geocoder (the second near the first), the route
    /// from the sample route service, every step a line; a place nowhere, one sentence.
    @Test func directionsInPlainMode() async throws {
        let server = try SampleFixture.start()
        defer { server.stop() }
        let session = try Session(["--plain", "--portal", server.baseURL.absoluteString])
        defer { if session.process.isRunning { session.process.terminate() } }
        try await session.waitFor("7. Bangor")
        session.send("directions Portland, ME to -68.7778,44.8012")
        let end = try await session.waitFor("Finish at")
        try await session.waitFor("\n", after: end)
        let lines = session.printed.split(separator: "\n").map(String.init)
        let head = try #require(lines.first { $0.hasPrefix("Directions Portland, ME, USA to -68.7778,44.8012: ") }, "\(lines)")
        #expect(head.contains(" kilometres, ") && head.contains(", arriving ") && head.hasSuffix(" steps:"))
        #expect(lines.contains { $0.hasPrefix("Directions ") && $0.hasSuffix(": asking the route service.") })
        #expect(lines.contains { $0.hasPrefix("  1. Start at Portland") })
        #expect(lines.contains { $0.contains(". Take I-295 N") && $0.contains(" — ") && $0.contains(" kilometres, ") })
        session.send("directions Portland")
        try await session.waitFor("directions needs two places or more")
        session.send("directions Nowhereville Qq to Bangor")
        try await session.waitFor("No place called “Nowhereville Qq” was found; give it as LON,LAT.")
        session.send("quit")
        await session.process.exited()
    }

    /// Directions piped in at once wait for the portal, on a fresh data folder and on one whose
    /// library already lists the web map (shown before the portal has answered), in the demo as
    /// the README gives it.
    @Test func directionsPipedAtOnceWaitForThePortal() async throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-plain-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        for run in ["fresh", "with a library", "again"] {
            let session = try Session(["demo", "--plain", "--data-dir", dataDir])
            session.send("directions Portland, ME to -68.7778,44.8012")
            session.endInput()
            await session.process.exited()
            #expect(session.printed.contains("Finish at") && !session.printed.contains("Not connected"), "\(run):\n\(session.printed)")
        }
    }

    /// The Maps card in lines: the web maps of a search, numbered; `webmap N` opens one in place of
    /// the first, and `maps` (Recent) then lists both.
    @Test func mapsSearchAndOpenAnotherWebMap() async throws {
        let server = try SampleFixture.start()
        defer { server.stop() }
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-plain-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let session = try Session(["--plain", "--portal", server.baseURL.absoluteString, "--webmap", SampleCatalog.webMapID, "--data-dir", dataDir])
        defer { if session.process.isRunning { session.process.terminate() } }
        var at = try await session.waitFor("7. Bangor")
        session.send("webmap 1")
        at = try await session.waitFor("No web maps are listed: type maps first.", after: at)
        session.send("maps search Topographic")
        at = try await session.waitFor("Web maps, Search: 1 of 1 web map", after: at)
        at = try await session.waitFor("  1. Maine Topographic — mapbook_sample, ", after: at)
        session.send("maps bogus")
        at = try await session.waitFor("maps takes recent, mine, groups, search WORDS or more.", after: at)
        session.send("webmap 1")
        at = try await session.waitFor("Maine Topographic: 0 map areas.", after: at, timeout: 30)
        session.send("maps")
        _ = try await session.waitFor("Web maps, Recent: 1 of 2 web maps", after: at)
        _ = try await session.waitFor("1. Maine Topographic", after: at)
        at = try await session.waitFor("2. Explore Maine", after: at)
        // Back to the list of the web map open: the card closes for a command about a row.
        session.send("details 1")
        _ = try await session.waitFor("Maine Topographic", after: at)
        session.send("quit")
        await session.process.exited()
        #expect(session.process.terminationStatus == 0)
    }
}
