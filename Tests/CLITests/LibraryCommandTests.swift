import Foundation
import Synchronization
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// `mapbook download / library / remove / verify` against the sample portal, into a fresh library.
@Suite("mapbook download, library, remove, verify")
struct LibraryCommandTests {
    let server: SamplePortal
    let dataDir: String
    var portal: String { server.baseURL.absoluteString }
    var common: [String] { ["--portal", portal, "--data-dir", dataDir] }
    var bangorBytes: Data { SampleFixture.content.packages[SampleFixture.bangor.packageID]!.data }

    init() throws {
        server = try SampleFixture.start()
        dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-cli-library-\(UUID())").path
    }

    /// Where Bangor's files land in the library.
    var bangorFolder: String {
        let portalKey = "127.0.0.1_\(server.port)"
        return "\(dataDir)/portals/\(portalKey)/webmaps/\(SampleFixture.webMapID)/areas/\(SampleFixture.bangorID)"
    }

    /// Named by package id and version (`modified`).
    var bangorPackage: String {
        let folder = bangorFolder + "/packages"
        let name = (try? FileManager.default.contentsOfDirectory(atPath: folder))?
            .first { $0.hasPrefix(SampleFixture.bangor.packageID + "-") && $0.hasSuffix(".vtpk") }
        return folder + "/" + (name ?? "\(SampleFixture.bangor.packageID)-?.vtpk")
    }
    var bangorPart: String { bangorFolder + "/partial/\(SampleFixture.bangor.packageID).part" }

    func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// `--all` with areas the portal cannot give yet: each named with why, the others downloaded,
    /// and exit 1 (documented), in text and in JSON.
    @Test func downloadAllNamesWhatItSkipsAndDoesNotClaimSuccess() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        try server.updateFaults { try $0.apply("processing=Caribou,failed=Boston") }
        let text = try await CLI.runAsync(["download", "--all"] + common)
        #expect(text.status == 1, "\(text.stdout) \(text.stderr)")
        #expect(text.stderr.contains("Caribou: skipped — Caribou is still being packaged on the portal"))
        #expect(text.stderr.contains("Boston: skipped — Boston cannot be downloaded: packaging it failed on the portal"))
        #expect(text.stdout.contains("Bangor: downloaded"))
        let json = try await CLI.runAsync(["download", "--all", "--json"] + common)
        #expect(json.status == 1)
        let skipped = jsonLines(json.stdout).filter { $0["event"] as? String == "skipped" }
        #expect(Set(skipped.compactMap { $0["title"] as? String }) == ["Caribou", "Boston"])
        #expect(skipped.allSatisfy { ($0["message"] as? String)?.isEmpty == false })
    }

    @Test func downloadThenLibraryThenVerifyThenRemove() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let download = try await CLI.runAsync(["download", "Bangor", "--json"] + common)
        #expect(download.status == 0, "\(download.stderr)")
        let events = jsonLines(download.stdout)
        #expect(events.first?["event"] as? String == "queued")
        #expect(events.last?["event"] as? String == "downloaded")
        #expect(events.last?["verifiedBy"] as? String == "zip CRC-32")
        #expect(FileManager.default.contents(atPath: bangorPackage) == bangorBytes)

        // Already there: skipped, unless the portal updates it.
        let again = try await CLI.runAsync(["download", SampleFixture.bangorID] + common)
        #expect(again.stdout.contains("already downloaded and up to date"))
        try server.updateFaults { try $0.apply("update=Bangor") }
        let updated = try await CLI.runAsync(["download", SampleFixture.bangorID] + common)
        #expect(updated.status == 0 && updated.stdout.contains("Bangor: updated "), "\(updated.stdout)")
        try server.updateFaults { $0 = SampleFaults() }
        _ = try await CLI.runAsync(["download", SampleFixture.bangorID] + common)

        let library = try await CLI.runAsync(["library", "--json"] + common)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(library.stdout.utf8)) as? [String: Any])
        let areas = try #require(json["mapAreas"] as? [[String: Any]])
        #expect(areas.count == 6)
        #expect(areas.first { $0["id"] as? String == SampleFixture.bangorID }?["state"] as? String == "downloaded")
        #expect(areas.filter { $0["state"] as? String == "notDownloaded" }.count == 5)

        // The library answers with the portal gone.
        server.stop()
        let offline = try await CLI.runAsync(["library"] + common)
        #expect(offline.status == 0)
        #expect(offline.stdout.contains("1 of 6 map areas downloaded"))
        let verify = try await CLI.runAsync(["verify"] + common)
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("ok      Bangor: 1 package"))

        // A damaged file is found.
        let handle = try #require(FileHandle(forUpdatingAtPath: bangorPackage))
        try handle.seek(toOffset: 40_000)
        handle.write(Data(repeating: 0xEE, count: 8))
        try handle.close()
        let damaged = try await CLI.runAsync(["verify"] + common)
        #expect(damaged.status == 1)
        #expect(damaged.stdout.contains("FAILED  Bangor"))

        let remove = try await CLI.runAsync(["remove", "bangor"] + common)
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(remove.stdout.contains("Removed Bangor (2.0 MiB freed)."))
        #expect(!FileManager.default.fileExists(atPath: bangorPackage))
        #expect(try await CLI.runAsync(["library"] + common).stdout.contains("0 of 6 map areas downloaded"))
    }

    @Test func aDamagedDownloadFailsWithOneSentenceAndIsNotKept() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        try server.updateFaults { $0.corrupt = true }
        let result = try await CLI.runAsync(["download", "Bangor"] + common)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Bangor: failed."))
        #expect(result.stderr.contains("arrived damaged"))
        #expect(!FileManager.default.fileExists(atPath: bangorPackage))
        #expect(try await CLI.runAsync(["library"] + common).stdout.contains("0 of 6 map areas downloaded"))
    }

    @Test func unknownAndAmbiguousNamesAreClearErrors() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let unknown = try await CLI.runAsync(["download", "Atlantis"] + common)
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "mapbook: No map area is called \"Atlantis\". The areas are: "
                + "Acadia, Boston, Baxter State Park, Greater Portland, Caribou, Bangor.\n")
        let ambiguous = try await CLI.runAsync(["download", "B", "--json"] + common)
        #expect(ambiguous.stdout.hasPrefix(#"{"error":{"kind":"ambiguousArea","#) && ambiguous.stdout.filter { $0 == "\n" }.count == 1)
        let both = try await CLI.runAsync(["download", "--all", "Bangor"] + common)
        #expect(both.status == 64)
        // No area: every download left part way resumes; here there is none.
        let resume = try await CLI.runAsync(["download"] + common)
        #expect(resume.status == 0)
        #expect(resume.stdout == "No download was left part way: nothing to resume. Name the areas to download, or give --all.\n")
    }

    /// A download neither starts libdispatch's worker threads nor its one-second pool monitor:
    /// tasks, timers and the download's writes run on mapbook's own threads (`QuietExecutor`,
    /// `SerialQueue`), so a mapbook left open after downloading still costs nothing idle.
    @Test func aDownloadRunsOnMapbooksOwnThreads() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        try server.updateFaults { $0.bytesPerSecond = 400_000 }
        defer { try? server.updateFaults { $0.bytesPerSecond = nil } }
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["download", "Bangor"] + common
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Watched from a thread of its own: the cooperative pool may be busy with other tests.
        let seen = Mutex((names: Set<String>(), samples: 0))
        let pid = process.processIdentifier
        let watcher = Thread {
            while process.isRunning {
                let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
                let names = tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
                seen.withLock {
                    $0.names.formUnion(names.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
                    $0.samples += 1
                }
                usleep(100_000)
            }
        }
        watcher.start()
        await process.exited()
        let (names, samples) = seen.withLock { ($0.names, $0.samples) }
        #expect(process.terminationStatus == 0)
        #expect(samples > 5, "the download was watched while it ran")
        // A worker of a global queue ("com.apple.root.default-qos", cut to its last 15 characters)
        // is what arms the monitor; libdispatch's manager thread ("…-qos.overcommit") alone does not.
        #expect(!names.contains { $0.hasSuffix("-qos") }, "threads seen: \(names.sorted())")
    }

    /// SIGKILL mid-download, then the same command again: it resumes from the bytes on disk (the
    /// portal sees the Range) and the file ends byte-identical to the portal's.
    @Test func aKilledDownloadResumesAndEndsIdentical() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        // Held part way by the portal until after the kill: the kill lands mid-download however
        // late this task's polling runs (a slow link once let the download end before the kill).
        try server.updateFaults { $0.holdAfterBytes = 1 << 20 }
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["download", "Bangor", "--json"] + common
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for the control file to name the response (saved every 2 s) and bytes to be on disk.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let control = FileManager.default.contents(atPath: bangorFolder + "/partial/\(SampleFixture.bangor.packageID).json")
            if let control, String(decoding: control, as: UTF8.self).contains("\"validator\" : \""),
               (try? FileManager.default.attributesOfItem(atPath: bangorPart)[.size] as? Int) ?? 0 >= 1 << 20 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        server.releaseHeldDownloads()
        #expect(process.terminationReason == .uncaughtSignal)
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: bangorPart)[.size] as? Int)
        #expect(kept > 0 && kept < bangorBytes.count)

        try server.updateFaults { $0.holdAfterBytes = nil }
        let resumed = try await CLI.runAsync(["download", "Bangor"] + common)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("Bangor: resuming after"))
        // The run after the kill asked from the bytes on disk (the killed one may have retried a
        // held request before the kill, from its own bytes).
        let ranges = server.requests.filter { $0.path.hasSuffix("\(SampleFixture.bangor.packageID)/data") }.compactMap { $0.headers["range"] }
        #expect(ranges.last == "bytes=\(kept)-", "\(ranges)")
        #expect(FileManager.default.contents(atPath: bangorPackage) == bangorBytes)
    }
}

/// What a script relies on: the exit status says whether the areas are there, whatever happens.
@Suite("mapbook download under interruption", .serialized)
struct DownloadInterruptionTests {
    let server: SamplePortal
    let dataDir: String
    var common: [String] { ["--portal", server.baseURL.absoluteString, "--data-dir", dataDir] }
    var packageBytes: Data { SampleFixture.content.packages[SampleFixture.bangor.packageID]!.data }
    var areaFolder: String {
        "\(dataDir)/portals/127.0.0.1_\(server.port)/webmaps/\(SampleFixture.webMapID)/areas/\(SampleFixture.bangorID)"
    }
    var part: String { areaFolder + "/partial/\(SampleFixture.bangor.packageID).part" }

    init() throws {
        server = try SampleFixture.start()
        dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-cli-interrupt-\(UUID())").path
    }

    func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = arguments + common
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "MAPBOOK_TOKEN")
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The part's control file names the response's validator, so the next run may resume.
    func hasSavedValidator() -> Bool {
        let control = FileManager.default.contents(atPath: areaFolder + "/partial/\(SampleFixture.bangor.packageID).json")
        return (control.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] })?["validator"] is String
    }

    func partSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0 }

    /// The area's record is written and its package is whole.
    func isDownloaded() -> Bool {
        guard FileManager.default.fileExists(atPath: areaFolder + "/manifest.json"),
              let name = (try? FileManager.default.contentsOfDirectory(atPath: areaFolder + "/packages"))?.first else { return false }
        return FileManager.default.contents(atPath: areaFolder + "/packages/" + name) == packageBytes
    }

    /// SIGTERM (and SIGINT) at random moments, the first half second included: never 0 while the
    /// area is partial. A signal before mapbook has anything to save ends it at once, which a shell
    /// reports as 143 too.
    @Test func aSignalNeverEndsAnUnfinishedDownloadWithZero() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir); server.stop() }
        // Slow enough that the twenty runs together never get the whole area.
        try server.updateFaults { $0.bytesPerSecond = 40_000 }
        var statuses: [String] = []
        for run in 0..<20 {
            let number = run % 4 == 3 ? SIGINT : SIGTERM
            let process = try start(["download", "Bangor"])
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...(run < 6 ? 500 : 2500))))
            kill(process.processIdentifier, number)
            await process.exited()
            let exitedItself = process.terminationReason == .exit && process.terminationStatus == 128 + number
            let killedBySignal = process.terminationReason == .uncaughtSignal && process.terminationStatus == number
            // 0 only once the area is really there (on a slow machine the runs can add up to all of it).
            let finished = process.terminationReason == .exit && process.terminationStatus == 0 && isDownloaded()
            statuses.append("\(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)")
            #expect(exitedItself || killedBySignal || finished, "run \(run): \(statuses.last!)")
        }
        try server.updateFaults { $0.bytesPerSecond = nil }
        let finished = try await CLI.runAsync(["download", "Bangor"] + common)
        #expect(finished.status == 0, "\(finished.stderr)")
        let packages = try FileManager.default.contentsOfDirectory(atPath: areaFolder + "/packages")
        #expect(packages.count == 1)
        #expect(FileManager.default.contents(atPath: areaFolder + "/packages/" + packages[0]) == packageBytes)
    }

    /// SIGKILL at 20 random moments (five in the first half second; the rest within 0.8 s of the
    /// run's first new bytes, however long a busy machine takes to start it), each followed by the
    /// same command: every resume asks for exactly the bytes not yet on disk, and the file ends
    /// byte-identical. A kill in the moment between the first bytes and the response's validator
    /// reaching the disk (wider on a loaded machine) leaves bytes no one can vouch for: the next run
    /// starts over, as it must, and is not counted as a resume.
    @Test func twentyKillsResumeWithoutLosingBytes() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir); server.stop() }
        try server.updateFaults { $0.bytesPerSecond = 60_000 }
        var kept: [Int] = []
        for run in 0..<20 {
            let before = partSize()
            let process = try start(["download", "Bangor", "--json"])
            if run >= 5 {
                let deadline = ContinuousClock.now + .seconds(60)
                while partSize() <= before, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: run < 5 ? 50...500 : 0...800)))
            kill(process.processIdentifier, SIGKILL)
            await process.exited()
            if hasSavedValidator() { kept.append(partSize()) }
        }
        try server.updateFaults { $0.bytesPerSecond = nil }
        let finished = try await CLI.runAsync(["download", "Bangor"] + common)
        #expect(finished.status == 0, "\(finished.stderr)")
        let packages = try FileManager.default.contentsOfDirectory(atPath: areaFolder + "/packages")
        #expect(FileManager.default.contents(atPath: areaFolder + "/packages/" + packages[0]) == packageBytes)

        // Each request after a kill starts where the file on disk ended.
        let ranges = server.requests.filter { $0.path.hasSuffix("\(SampleFixture.bangor.packageID)/data") }
            .map { $0.headers["range"].flatMap { Int($0.dropFirst(6).dropLast()) } ?? 0 }
        let starts = ranges.filter { $0 > 0 }
        for size in kept where size > 0 {
            #expect(starts.contains(size), "a resume from \(size) bytes: \(ranges)")
        }
        #expect(kept.filter { $0 > 0 }.count >= 5, "kills landed mid-transfer: \(kept)")
    }

    /// Two processes, one area: one downloads, the other says who has it and exits 1; with --wait
    /// it waits and then finds the area downloaded. remove refuses while the download runs.
    @Test func twoProcessesOneArea() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir); server.stop() }
        try server.updateFaults { $0.bytesPerSecond = 400_000 }
        let first = try start(["download", "Bangor"])
        let deadline = ContinuousClock.now + .seconds(30)
        while partSize() < 100_000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }

        let second = try await CLI.runAsync(["download", "Bangor"] + common)
        #expect(second.status == 1)
        #expect(second.stderr.contains("Bangor is being downloaded by another mapbook (pid \(first.processIdentifier))"), "\(second.stderr)")
        let remove = try await CLI.runAsync(["remove", "Bangor"] + common)
        #expect(remove.status == 1)
        #expect(remove.stderr.contains("is being downloaded by another mapbook (pid \(first.processIdentifier))"))

        let waiting = try await CLI.runAsync(["download", "Bangor", "--wait"] + common)
        await first.exited()
        #expect(first.terminationStatus == 0)
        #expect(waiting.status == 0, "\(waiting.stderr)")
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: areaFolder).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    /// A package deleted or damaged behind mapbook's back: not downloaded any more, `download`
    /// repairs a missing one, `verify --repair` a damaged one.
    @Test func deletedAndDamagedPackagesAreRepaired() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir); server.stop() }
        #expect(try await CLI.runAsync(["download", "Bangor"] + common).status == 0)
        let packages = areaFolder + "/packages"
        let file = packages + "/" + (try FileManager.default.contentsOfDirectory(atPath: packages)[0])

        unlink(file)
        let library = try await CLI.runAsync(["library"] + common)
        #expect(library.stdout.contains("0 of 6 map areas downloaded"))
        #expect(library.stdout.contains("Bangor: a package file is missing or changed on this device"))
        let verify = try await CLI.runAsync(["verify"] + common)
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("on this device is damaged (the file is missing)"))
        #expect(!verify.stdout.contains("nothing was kept"))
        let again = try await CLI.runAsync(["download", "Bangor"] + common)
        #expect(again.status == 0)
        #expect(!again.stdout.contains("already downloaded"))
        #expect(FileManager.default.contents(atPath: file) == packageBytes)

        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        try handle.seek(toOffset: 40_000)
        handle.write(Data(repeating: 0xEE, count: 8))
        try handle.close()
        #expect(try await CLI.runAsync(["verify"] + common).status == 1)
        let repair = try await CLI.runAsync(["verify", "--repair"] + common)
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stdout.contains("Bangor: downloaded"))
        #expect(try await CLI.runAsync(["verify"] + common).status == 0)
        #expect(FileManager.default.contents(atPath: file) == packageBytes)
    }

    /// `download --json` is one JSON object per line, its errors included.
    @Test func downloadJSONIsOneObjectPerLine() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir); server.stop() }
        try server.updateFaults { try $0.apply("processing=Bangor") }
        let result = try await CLI.runAsync(["download", "Bangor", "Acadia", "--json"] + common)
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count >= 3)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "\(line)")
        }
        #expect(result.stdout.contains("Bangor is still being packaged on the portal"))
    }
}
