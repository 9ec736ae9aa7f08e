import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// A fleet mirror end to end: `mapbook stage` copies the sample portal's web map into a folder,
/// Debian's nginx serves it with `scripts/mirror/nginx.conf` (through `scripts/mirror/serve`), and
/// twenty devices download every area at once from it — byte for byte the portal's packages, which
/// the portal sent only to the stage. A damaged copy on the mirror is caught by its SHA-256 and
/// fetched from the portal; with the portal stopped the mirror alone serves the web map.
@Suite("The fleet mirror (mapbook stage, nginx, --mirror)", .serialized)
struct FleetMirrorTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-fleet-\(UUID())").path

    static let serve = CLIExamplesTests.repository.appendingPathComponent("scripts/mirror/serve").path
    static let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// A command on one device (its own library and config); `stage` has no library.
    func run(_ arguments: [String], device: String) async throws -> CLIResult {
        try await CLI.runAsync(arguments + (arguments.first == "stage" ? [] : ["--data-dir", "\(home)/\(device)/data"]),
                               environment: ["XDG_CONFIG_HOME": "\(home)/\(device)/config", "XDG_STATE_HOME": "\(home)/\(device)/state",
                                             "XDG_CACHE_HOME": "\(home)/\(device)/cache"])
    }

    /// GETs of a package's bytes the portal has answered, by package id.
    static func packageFetches(_ portal: SamplePortal) -> [String: Int] {
        var counts: [String: Int] = [:]
        for request in portal.requests where request.method == "GET" {
            let parts = request.path.split(separator: "/")
            guard parts.count == 6, parts.last == "data", request.query["f"] == nil else { continue }
            counts[String(parts[4]), default: 0] += 1
        }
        return counts
    }

    @Test(.enabled(if: nginx != nil, "needs nginx (scripts/setup installs it)"))
    func twentyDevicesTakeEveryPackageFromTheMirrorAndADamagedCopyFromThePortal() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let address = portal.baseURL.absoluteString, mirrorFolder = home + "/mirror"

        let staged = try await run(["stage", "--portal", address, "--all", "--to", mirrorFolder, "--json"], device: "stage")
        #expect(staged.status == 0, "\(staged.stdout) \(staged.stderr)")
        let stagedFetches = Self.packageFetches(portal)
        #expect(stagedFetches.count == 7 && stagedFetches.values.allSatisfy { $0 == 1 }, "\(stagedFetches)")

        let server = try MirrorServer(folder: mirrorFolder)
        defer { server.stop() }
        try await server.waitUntilAnswering()

        let devices = 20
        let results = try await withThrowingTaskGroup(of: (Int, CLIResult).self) { group in
            for device in 0..<devices {
                group.addTask {
                    (device, try await run(["download", "--all", "--portal", address, "--mirror", server.url, "--json"], device: "device\(device)"))
                }
            }
            return try await group.reduce(into: [Int: CLIResult]()) { $0[$1.0] = $1.1 }
        }
        for (device, result) in results.sorted(by: { $0.key < $1.key }) {
            #expect(result.status == 0, "device \(device): \(result.stdout) \(result.stderr)")
        }
        #expect(Self.packageFetches(portal) == stagedFetches, "the devices took no package from the portal")

        // Every device holds the portal's bytes.
        var portalBytes: [String: Data] = [:]
        for id in stagedFetches.keys {
            portalBytes[id] = try #require(FileManager.default.contents(atPath: "\(mirrorFolder)/sharing/rest/content/items/\(id)/data"))
        }
        for (id, package) in SampleFixture.content.packages where portalBytes[id] != nil {
            #expect(portalBytes[id] == package.data, "the mirror's copy of \(package.name) is the portal's")
        }
        for device in 0..<devices {
            let files = try FileManager.default.subpathsOfDirectory(atPath: "\(home)/device\(device)/data")
                .filter { $0.contains("/packages/") && !$0.hasSuffix("/packages") }
            #expect(files.count == 7, "device \(device): \(files)")
            for file in files {
                let id = String((file as NSString).lastPathComponent.prefix(32))
                #expect(FileManager.default.contents(atPath: "\(home)/device\(device)/data/\(file)") == portalBytes[id], "device \(device): \(file)")
            }
        }

        // A copy damaged on the mirror (same size, one byte changed) is caught and fetched from the portal.
        let acadia = try #require(SampleFixture.content.packages.values.first { $0.name.contains("Acadia") }).id
        let damaged = "\(mirrorFolder)/sharing/rest/content/items/\(acadia)/data"
        var bytes = try #require(FileManager.default.contents(atPath: damaged))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let repaired = try await run(["download", "Acadia", "--portal", address, "--mirror", server.url], device: "late")
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(repaired.stderr.contains("the mirror's copy is damaged (its SHA-256 is not the one mirror.json lists); it came from the portal instead."),
                "\(repaired.stderr)")
        #expect(Self.packageFetches(portal)[acadia] == 2)
        let library = try await run(["library", "--portal", address, "--json"], device: "late")
        let area = try JSONValue(parsing: Data(library.stdout.utf8))["mapAreas"]?.array.first { $0["title"]?.string == "Acadia" }
        #expect(area?["from"]?.string == "portal")
        #expect(area?["packages"]?[0]?["mirrorProblem"]?.string?.contains("SHA-256") == true)
    }

    @Test(.enabled(if: nginx != nil, "needs nginx (scripts/setup installs it)"))
    func withThePortalStoppedTheMirrorAloneListsAndDownloads() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        let address = portal.baseURL.absoluteString, mirrorFolder = home + "/mirror"
        let staged = try await run(["stage", "--portal", address, "Bangor", "Acadia", "--to", mirrorFolder], device: "stage")
        #expect(staged.status == 0, "\(staged.stderr)")
        #expect(staged.stdout.contains("Staged 2 areas"), "\(staged.stdout)")
        portal.stop()

        let server = try MirrorServer(folder: mirrorFolder)
        defer { server.stop() }
        try await server.waitUntilAnswering()
        let areas = try await run(["areas", "--portal", address, "--mirror", server.url], device: "device")
        #expect(areas.status == 0 && areas.stdout.contains("Bangor") && !areas.stdout.contains("Boston"), "\(areas.stdout) \(areas.stderr)")
        let download = try await run(["download", "Bangor", "--portal", address, "--mirror", server.url], device: "device")
        #expect(download.status == 0, "\(download.stdout) \(download.stderr)")
        #expect(download.stdout.contains("Bangor: downloaded 2.0 MiB from mirror \(server.url)"), "\(download.stdout)")
    }
}

/// `scripts/mirror/serve DIR PORT` as a child process, stopped with SIGTERM. Spawned with every
/// signal unblocked and at its default (this test process's threads block some, and a child would
/// inherit that: the script could then not be stopped).
final class MirrorServer: Sendable {
    let pid: pid_t
    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }

    init(folder: String) throws {
        port = MirrorServer.freePort()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, folder + "/../serve.log", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let inherited = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        for fd in inherited where fd > 2 && fcntl(fd, F_GETFD) >= 0 { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let words: [String] = [FleetMirrorTests.serve, folder, String(port)]
        var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, FleetMirrorTests.serve, &actions, &attributes, &arguments, environ)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        pid = child
    }

    /// Polls `mirror.json` until nginx answers (it starts in well under a second).
    func waitUntilAnswering() async throws {
        for _ in 0..<200 {
            if MirrorServer.answers(port: port) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("nginx did not answer on port \(port)")
    }

    /// SIGTERM, as a service manager would stop it; it must be gone within ten seconds.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<200 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(50_000)
        }
        kill(pid, SIGKILL)
        Issue.record("scripts/mirror/serve did not stop on SIGTERM")
    }

    /// Whether something accepts connections on 127.0.0.1:port.
    static func answers(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A port the kernel had free a moment ago.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
