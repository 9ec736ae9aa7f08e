import Foundation
import Testing

/// `scripts/mirror/serve DIR PORT` as a child process (`CleanSpawn`: its `trap` must see SIGTERM),
/// stopped with SIGTERM.
public final class MirrorServer: Sendable {
    /// `scripts/mirror/serve`, beside these fixtures in the repository.
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/mirror/serve").path
    /// Debian's nginx, when installed (scripts/setup installs it).
    public static let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let pid: pid_t
    public let port: Int
    public var url: String { "http://127.0.0.1:\(port)" }

    public init(folder: String) throws {
        port = MirrorServer.freePort()
        pid = try CleanSpawn.start(MirrorServer.script, [folder, String(port)], output: folder + "/../serve.log")
    }

    /// Polls `mirror.json` until nginx answers (it starts in well under a second).
    public func waitUntilAnswering() async throws {
        for _ in 0..<200 {
            if MirrorServer.answers(port: port) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("nginx did not answer on port \(port)")
    }

    /// SIGTERM, as a service manager would stop it; it must be gone within ten seconds.
    public func stop() {
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
    public static func freePort() -> Int {
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
