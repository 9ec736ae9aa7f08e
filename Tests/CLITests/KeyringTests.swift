import Foundation
import PortalFixtures
import SamplePortal
import Testing

/// With a Secret Service on the session bus (gnome-keyring, in a session of its own), a sign-in is
/// kept in the desktop keyring and no credentials file is written; sign-out clears it.
@Suite("mapbook auth with the desktop keyring")
struct KeyringTests {
    static let tools = ["/usr/bin/dbus-run-session", "/usr/bin/gnome-keyring-daemon"]
    static var available: Bool { tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } }

    @Test(.enabled(if: available, "needs dbus-run-session and gnome-keyring-daemon (scripts/setup installs them)"), .timeLimit(.minutes(2)))
    func aSignInIsKeptInTheKeyringAndNotInAFile() async throws {
        let server = try SampleFixture.start()
        defer { server.stop() }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-keyring-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home + "/home", withIntermediateDirectories: true)
        let portal = server.baseURL.absoluteString
        let script = """
            export HOME='\(home)/home' XDG_CONFIG_HOME='\(home)/config' XDG_DATA_HOME='\(home)/data'
            printf 'pw' | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
            keyring=$!
            sleep 1
            m='\(CLI.executable.path)'
            echo mapbook-demo | "$m" auth login --portal \(portal) --username demo --password-stdin
            "$m" auth status --portal \(portal)
            "$m" info \(SampleCatalog.protectedID) --portal \(portal) | head -n 1
            ls "$XDG_CONFIG_HOME/mapbook/credentials.json" 2>/dev/null || echo "no credentials file"
            "$m" auth logout --portal \(portal)
            "$m" auth status --portal \(portal) || echo "not signed in: $?"
            kill $keyring
            """
        let outputPath = home + "/output.txt"
        let status = try await Self.run(["/usr/bin/timeout", "60", Self.tools[0], "--", "/bin/sh", "-c", script], output: outputPath)
        #expect(status == 0)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        #expect(text.contains("Signed in to 127.0.0.1 as demo.\n"), "\(text)")
        #expect(text.contains("Kept in the desktop keyring (Secret Service)"), "\(text)")
        #expect(text.contains("Title     Explore Maine (staff)"), "\(text)")
        #expect(text.contains("no credentials file"), "\(text)")
        #expect(text.contains("Signed out of 127.0.0.1.") && text.contains("not signed in: 4"), "\(text)")
    }

    /// Runs a command with its output in a file and the signals this test process ignores set back
    /// to their defaults: a signal ignored here is ignored by every child too (the session bus and
    /// the keyring daemon would then outlive their session), and Process cannot reset them.
    static func run(_ arguments: [String], output: String) async throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var environment = ProcessInfo.processInfo.environment
        environment["MAPBOOK_KEYRING"] = nil
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(50)) }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}
