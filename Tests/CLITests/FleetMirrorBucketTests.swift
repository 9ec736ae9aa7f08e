import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// A fleet mirror on any static host: devices ask for the very files `stage` wrote, so the folder
/// uploaded as it is serves the whole catalogue and every package with the portal gone — from a
/// plain static server (no rewrites, queries ignored) and from an S3-compatible store (moto).
@Suite("The fleet mirror on a plain bucket", .serialized)
struct FleetMirrorBucketTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-bucket-\(UUID())").path

    func run(_ arguments: [String], device: String, environment: [String: String] = [:]) async throws -> CLIResult {
        try await CLI.runAsync(arguments + (arguments.first == "stage" ? [] : ["--data-dir", "\(home)/\(device)/data"]),
                               environment: ["XDG_CONFIG_HOME": "\(home)/\(device)/config", "XDG_STATE_HOME": "\(home)/\(device)/state",
                                             "XDG_CACHE_HOME": "\(home)/\(device)/cache"].merging(environment) { $1 })
    }

    /// Stages every area of the sample web map into `home/mirror`, then stops the portal: its
    /// address is what the devices are given, and nothing answers there.
    func stagedWithThePortalGone() async throws -> String {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let staged = try await run(["stage", "--portal", portal.baseURL.absoluteString, "--all", "--to", home + "/mirror"], device: "stage")
        #expect(staged.status == 0 && staged.stdout.contains("Staged 6 areas"), "\(staged.stdout) \(staged.stderr)")
        return portal.baseURL.absoluteString
    }

    /// With the portal gone, a device lists the web map's areas and downloads every one from the
    /// mirror at `url`, each checked against mirror.json.
    func aDeviceTakesEverything(portal: String, mirror url: String, environment: [String: String] = [:]) async throws {
        let areas = try await run(["areas", "--portal", portal, "--mirror", url], device: "device", environment: environment)
        #expect(areas.status == 0 && areas.stdout.contains("6 map areas"), "\(areas.stdout) \(areas.stderr)")
        let download = try await run(["download", "--all", "--portal", portal, "--mirror", url], device: "device", environment: environment)
        #expect(download.status == 0, "\(download.stdout) \(download.stderr)")
        #expect(download.stdout.components(separatedBy: "from mirror \(url)").count - 1 == 6, "\(download.stdout)")
    }

    @Test func aPlainStaticHostServesTheWholeMirror() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try await stagedWithThePortalGone()
        let host = try StaticFolderServer(folder: home + "/mirror")
        defer { host.stop() }
        try await aDeviceTakesEverything(portal: portal, mirror: host.url)
        #expect(host.server.requests.allSatisfy { !$0.path.hasSuffix("/relatedItems") && !$0.path.hasSuffix("/data") || $0.query["f"] == nil },
                "files are asked for by their names")
    }

    /// A private bucket: its token from MAPBOOK_MIRROR_TOKEN goes to the mirror, and only there;
    /// without it the bucket refuses and, the portal gone too, the device says so.
    @Test func aPrivateBucketTakesItsOwnBearerToken() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try await stagedWithThePortalGone()
        let host = try StaticFolderServer(folder: home + "/mirror", bearer: "bucket-secret-1")
        defer { host.stop() }
        let refused = try await run(["areas", "--portal", portal, "--mirror", host.url], device: "stranger")
        #expect(refused.status != 0 && !refused.stdout.contains("map areas"), "\(refused.stdout)")
        try await aDeviceTakesEverything(portal: portal, mirror: host.url,
                                         environment: ["MAPBOOK_MIRROR_TOKEN": "bucket-secret-1", "MAPBOOK_TOKEN": "portal-token-2"])
        #expect(host.server.requests.allSatisfy { $0.headers["x-esri-authorization"] == nil }, "the portal's token never goes to the mirror")
    }

    /// moto's S3 server, when installed (scripts/setup puts it in .build/moto).
    static let motoServer: String? = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [repository.appendingPathComponent(".build/moto/bin/moto_server").path]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/moto_server" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    @Test(.enabled(if: motoServer != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
                   "needs moto's S3 server (scripts/setup installs it into .build/moto) and curl"),
          .timeLimit(.minutes(3)))
    func anS3BucketServesTheWholeMirror() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try await stagedWithThePortalGone()
        let port = MirrorServer.freePort()
        let moto = try CleanSpawn.start(Self.motoServer!, ["-H", "127.0.0.1", "-p", String(port)], output: home + "/moto.log")
        defer { kill(moto, SIGTERM); var status: Int32 = 0; waitpid(moto, &status, 0) }
        let bucket = "http://127.0.0.1:\(port)/mapbook-mirror"
        var created = false
        for _ in 0..<100 where !created {
            created = Self.curl(["-X", "PUT", "-H", "x-amz-acl: public-read", bucket]) == 0
            if !created { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(created, "moto did not answer")
        // Uploaded as it is (`aws s3 sync … --exclude ".*"`), mirror.json last.
        let folder = home + "/mirror"
        let files = (FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []).filter { file in
            var isFolder: ObjCBool = false
            return !file.split(separator: "/").contains { $0.hasPrefix(".") } && FileManager.default.fileExists(atPath: folder + "/" + file, isDirectory: &isFolder) && !isFolder.boolValue
        }.sorted { ($0 == "mirror.json" ? 1 : 0, $0) < ($1 == "mirror.json" ? 1 : 0, $1) }
        for file in files {
            let type = file.hasSuffix(".json") ? "application/json" : "application/octet-stream"
            #expect(Self.curl(["-X", "PUT", "-H", "Expect:", "-H", "x-amz-acl: public-read", "-H", "Content-Type: \(type)", "-T", folder + "/" + file,
                               "\(bucket)/\(file)"]) == 0, "\(file)")
        }
        try await aDeviceTakesEverything(portal: portal, mirror: bucket)
    }

    /// curl's exit status (`-f`: an HTTP error is a failure).
    static func curl(_ arguments: [String]) -> Int32 {
        guard let pid = try? CleanSpawn.start("/usr/bin/curl", ["-sf", "-o", "/dev/null"] + arguments, output: "/dev/null") else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }
}
