import CNetlink
import EventLoop
import Foundation

/// Watches the kernel's routing table over netlink: when the last default route goes (cable out,
/// Wi-Fi gone), the network is down at once, before any request has to time out. The socket is
/// watched by the UI event loop's `poll`, so the watch costs no thread and no wake-up while nothing
/// changes.
final class RouteWatcher: Sendable {
    private let fd: Int32

    /// `changed` is called, on the event loop's thread, with whether a default route exists after
    /// each change. nil when netlink is not available (not Linux, or a sandbox without it).
    init?(changed: @escaping @Sendable (Bool) -> Void) {
        let fd = mb_route_events_open()
        guard fd >= 0 else { return nil }
        self.fd = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        UIEventLoop.shared.watch(fd) {
            // Everything waiting is read now: the loop polls the socket again only after this.
            var buffer = [UInt8](repeating: 0, count: 16 << 10)
            var changes = 0
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n > 0 { changes += 1; continue }
                if n < 0, errno == EINTR { continue }
                // ENOBUFS: messages were lost; the table is read again below all the same.
                if n < 0, errno == ENOBUFS { changes += 1; continue }
                if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { UIEventLoop.shared.unwatch(fd) }
                break
            }
            if changes > 0 { changed(RouteTable.hasDefaultRoute()) }
        }
    }

    /// Ends the watch.
    func stop() {
        UIEventLoop.shared.unwatch(fd)
        close(fd)
    }
}

/// Reads the kernel's routing tables from /proc.
enum RouteTable {
    static func hasDefaultRoute() -> Bool {
        let v4 = (try? String(contentsOfFile: "/proc/net/route", encoding: .utf8)) ?? ""
        let v6 = (try? String(contentsOfFile: "/proc/net/ipv6_route", encoding: .utf8)) ?? ""
        return hasDefaultRoute(ipv4: v4, ipv6: v6)
    }

    /// IPv4: a line whose destination and mask are 00000000 and that is up (flag 0x1). IPv6: a
    /// ::/0 route not on the loopback device (the kernel keeps an unreachable ::/0 on `lo`).
    static func hasDefaultRoute(ipv4: String, ipv6: String) -> Bool {
        for line in ipv4.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 8, fields[1] == "00000000", fields[7] == "00000000",
                  let flags = Int(fields[3], radix: 16), flags & 1 != 0 else { continue }
            return true
        }
        for line in ipv6.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 10, fields[0] == String(repeating: "0", count: 32), fields[1] == "00",
                  fields[9] != "lo", let flags = Int(fields[8], radix: 16), flags & 1 != 0 else { continue }
            return true
        }
        return false
    }
}
