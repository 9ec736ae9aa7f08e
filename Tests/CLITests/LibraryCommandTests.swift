import Foundation
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

    @Test func downloadThenLibraryThenVerifyThenRemove() throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let download = try CLI.run(["download", "Bangor", "--json"] + common)
        #expect(download.status == 0, "\(download.stderr)")
        let events = jsonLines(download.stdout)
        #expect(events.first?["event"] as? String == "queued")
        #expect(events.last?["event"] as? String == "downloaded")
        #expect(events.last?["verifiedBy"] as? String == "zip CRC-32")
        #expect(FileManager.default.contents(atPath: bangorPackage) == bangorBytes)

        // Already there: skipped, unless the portal updates it.
        let again = try CLI.run(["download", SampleFixture.bangorID] + common)
        #expect(again.stdout.contains("already downloaded and up to date"))

        let library = try CLI.run(["library", "--json"] + common)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(library.stdout.utf8)) as? [String: Any])
        let areas = try #require(json["mapAreas"] as? [[String: Any]])
        #expect(areas.count == 6)
        #expect(areas.first { $0["id"] as? String == SampleFixture.bangorID }?["state"] as? String == "downloaded")
        #expect(areas.filter { $0["state"] as? String == "notDownloaded" }.count == 5)

        // The library answers with the portal gone.
        server.stop()
        let offline = try CLI.run(["library"] + common)
        #expect(offline.status == 0)
        #expect(offline.stdout.contains("1 of 6 map areas downloaded"))
        let verify = try CLI.run(["verify"] + common)
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("ok      Bangor: 1 package"))

        // A damaged file is found.
        let handle = try #require(FileHandle(forUpdatingAtPath: bangorPackage))
        try handle.seek(toOffset: 40_000)
        handle.write(Data(repeating: 0xEE, count: 8))
        try handle.close()
        let damaged = try CLI.run(["verify"] + common)
        #expect(damaged.status == 1)
        #expect(damaged.stdout.contains("FAILED  Bangor"))

        let remove = try CLI.run(["remove", "bangor"] + common)
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(remove.stdout.contains("Removed Bangor (2.0 MiB freed)."))
        #expect(!FileManager.default.fileExists(atPath: bangorPackage))
        #expect(try CLI.run(["library"] + common).stdout.contains("0 of 6 map areas downloaded"))
    }

    @Test func aDamagedDownloadFailsWithOneSentenceAndIsNotKept() throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        try server.updateFaults { $0.corrupt = true }
        let result = try CLI.run(["download", "Bangor"] + common)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Bangor: failed."))
        #expect(result.stderr.contains("arrived damaged"))
        #expect(!FileManager.default.fileExists(atPath: bangorPackage))
        #expect(try CLI.run(["library"] + common).stdout.contains("0 of 6 map areas downloaded"))
    }

    @Test func unknownAndAmbiguousNamesAreClearErrors() throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let unknown = try CLI.run(["download", "Atlantis"] + common)
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "mapbook: No map area is called \"Atlantis\".\n")
        let ambiguous = try CLI.run(["download", "B", "--json"] + common)
        #expect(ambiguous.stdout.hasPrefix(#"{"error":{"kind":"ambiguousArea","#) && ambiguous.stdout.filter { $0 == "\n" }.count == 1)
        let neither = try CLI.run(["download"] + common)
        #expect(neither.status == 64)
    }

    /// SIGKILL mid-download, then the same command again: it resumes from the bytes on disk (the
    /// portal sees the Range) and the file ends byte-identical to the portal's.
    @Test func aKilledDownloadResumesAndEndsIdentical() async throws {
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        // Slow enough that the kill lands mid-download even when other tests keep the cooperative
        // pool busy and this task's polling runs late.
        try server.updateFaults { $0.bytesPerSecond = 100_000 }
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
               (try? FileManager.default.attributesOfItem(atPath: bangorPart)[.size] as? Int) ?? 0 > 500_000 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: bangorPart)[.size] as? Int)
        #expect(kept > 0 && kept < bangorBytes.count)

        try server.updateFaults { $0.bytesPerSecond = nil }
        let resumed = try CLI.run(["download", "Bangor"] + common)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("Bangor: resuming after"))
        let ranges = server.requests.filter { $0.path.hasSuffix("\(SampleFixture.bangor.packageID)/data") }.compactMap { $0.headers["range"] }
        #expect(ranges == ["bytes=\(kept)-"])
        #expect(FileManager.default.contents(atPath: bangorPackage) == bangorBytes)
    }
}
