import Foundation
import Glibc
import Synchronization
import Geometry
import MapbookCore

/// Where gpsd listens: `host:port`, `host` alone (port 2947), or `[v6]:port`; from the config's
/// `gpsd` or the environment's `GPSD_HOST`.
public struct GPSDAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public static let defaultPort = 2947

    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var host = trimmed, port = Self.defaultPort
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else { return nil }
            host = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
            let rest = trimmed[trimmed.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { return nil }
                port = number
            }
        } else if trimmed.filter({ $0 == ":" }).count == 1, let colon = trimmed.firstIndex(of: ":") {
            host = String(trimmed[..<colon])
            guard let number = Int(trimmed[trimmed.index(after: colon)...]) else { return nil }
            port = number
        }
        guard !host.isEmpty, host.count <= 253, (1...65_535).contains(port),
              host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:_".contains($0) }) else { return nil }
        self.host = host; self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Watches gpsd on a thread of its own, never blocking the caller: connects, asks for JSON
/// reports, reads them a line at a time (a line longer than `GPSDReport.longestLine` is skipped
/// whole), says each change of `LocationStatus`, and when gpsd goes says so and connects again by
/// itself, waiting a little longer each time (at most 10 s).
public final class GPSDWatcher: Sendable {
    public let address: GPSDAddress
    /// Seconds without a report before a fix is said to be stale.
    public let staleAfter: Int
    private let onChange: @Sendable (LocationStatus) -> Void
    private let running = Mutex(true)
    private let connection = Mutex<Int32>(-1)
    /// What was said last: the same status is not said again (gpsd gone stays one report, however
    /// many times connecting fails).
    private let said = Mutex<LocationStatus?>(nil)
    /// What the wait between connections sleeps on, so that `stop` ends it at once (no polling:
    /// a gpsd that is not there costs a wake-up per attempt, not ten a second).
    private let pause = NSCondition()

    public init(address: GPSDAddress, staleAfter: Int = 5, onChange: @escaping @Sendable (LocationStatus) -> Void) {
        self.address = address; self.staleAfter = max(staleAfter, 1); self.onChange = onChange
    }

    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "gpsd"
        thread.start()
    }

    /// Stops watching: the connection is shut, the thread ends within a second.
    public func stop() {
        running.withLock { $0 = false }
        connection.withLock { if $0 >= 0 { shutdown($0, Int32(SHUT_RDWR)) } }
        pause.lock()
        pause.broadcast()
        pause.unlock()
    }

    private var isRunning: Bool { running.withLock { $0 } }

    private func run() {
        var wait = 1.0
        while isRunning {
            let why = session()
            guard isRunning else { return }
            report(.unavailable(why))
            let until = Date().addingTimeInterval(wait)
            pause.lock()
            while isRunning, Date() < until { _ = pause.wait(until: until) }
            pause.unlock()
            wait = min(wait * 2, 10)
        }
    }

    /// One connection, until it ends: the sentence that says why.
    private func session() -> String {
        guard let socket = Self.connect(address) else { return "gpsd at \(address) cannot be reached" }
        connection.withLock { $0 = socket }
        defer { connection.withLock { close($0); $0 = -1 } }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let sent = GPSDReport.watch.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == GPSDReport.watch.count else { return "gpsd at \(address) did not take the request for reports" }
        var state = SessionState(staleAfter: staleAfter)
        report(state.status)
        var pending: [UInt8] = [], skipping = false
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while isRunning {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count == 0 { return "gpsd at \(address) closed the connection" }
            if count < 0 {
                guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                    return "gpsd at \(address) stopped answering"
                }
                if state.tick(now: Date()) { report(state.status) }
                continue
            }
            var start = 0
            for index in 0..<count where buffer[index] == 0x0A {
                if skipping { skipping = false } else {
                    pending.append(contentsOf: buffer[start..<index])
                    if state.take(GPSDReport(line: Data(pending)), now: Date()) { report(state.status) }
                }
                pending.removeAll(keepingCapacity: true)
                start = index + 1
            }
            if !skipping { pending.append(contentsOf: buffer[start..<count]) }
            // A line that never ends is dropped, not kept growing.
            if pending.count > GPSDReport.longestLine { pending.removeAll(); skipping = true }
            if state.tick(now: Date()) { report(state.status) }
        }
        return "stopped"
    }

    private func report(_ status: LocationStatus) {
        guard isRunning, said.withLock({ last in defer { last = status }; return last != status }) else { return }
        onChange(status)
    }

    /// A TCP connection to gpsd within 3 s, IPv4 or IPv6, as the name resolves.
    private static func connect(_ address: GPSDAddress) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(first) }
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            next = entry.pointee.ai_next
            let fd = socket(entry.pointee.ai_family, entry.pointee.ai_socktype, entry.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var connected = Glibc.connect(fd, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0
            if !connected, errno == EINPROGRESS {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                var problem: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                connected = poll(&poller, 1, 3_000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &problem, &length) == 0 && problem == 0
            }
            if connected {
                _ = fcntl(fd, F_SETFL, flags)
                return fd
            }
            close(fd)
        }
        return nil
    }
}

/// What one connection has heard: the status it makes, changed by each report and by time.
struct SessionState {
    let staleAfter: Int
    private(set) var status = LocationStatus.searching
    private var satellites: Satellites?
    private var lastFix: GPSFix?
    private var lastReport: Date?

    init(staleAfter: Int) { self.staleAfter = staleAfter }

    /// Takes a report; true when the status changed.
    mutating func take(_ report: GPSDReport, now: Date) -> Bool {
        let before = status
        switch report {
        case .position(let fix):
            // Time going backwards (a replay, a receiver's glitch): the older fix is not taken.
            if let previous = lastFix?.time, let time = fix.time, time < previous { return false }
            // When it was heard: what times a fix without the receiver's time (a track needs one).
            var fix = fix
            fix.heard = now
            lastFix = fix; lastReport = now
            status = .fix(fix, satellites)
        case .noFix:
            lastReport = now
            status = .noFix(satellites)
        case .satellites(let seen):
            satellites = seen
            switch status {
            case .fix(let fix, _): status = .fix(fix, seen)
            case .noFix: status = .noFix(seen)
            default: break
            }
        case .other:
            return false
        }
        return status != before
    }

    /// A fix with no report for `staleAfter` seconds becomes stale, its age counted; true when
    /// the status changed.
    mutating func tick(now: Date) -> Bool {
        guard let fix = lastFix, let last = lastReport else { return false }
        let seconds = now.timeIntervalSince(last).clampedInt(in: 0...Int(Int32.max), rounding: .down)
        guard seconds >= staleAfter else { return false }
        let stale = LocationStatus.stale(fix, seconds: seconds)
        guard case .fix = status else {
            if case .stale = status, status != stale { status = stale; return true }
            return false
        }
        status = stale
        return true
    }
}

/// Where the location comes from: gpsd (the environment's GPSD_HOST, else the config's `gpsd`,
/// else 127.0.0.1:2947), or the config's fixed `location` when no gpsd is named.
public enum LocationSource: Sendable, Equatable {
    case gpsd(GPSDAddress)
    case fixed(GeoPoint)

    /// The one rule for the browser and the commands; a GPSD_HOST that is not an address is said.
    public static func chosen(environment: [String: String], gpsd: GPSDAddress?, location: GeoPoint?) throws(LocationSourceError) -> LocationSource {
        if let host = environment["GPSD_HOST"], !host.isEmpty {
            guard let address = GPSDAddress(host) else { throw LocationSourceError(host: host) }
            return .gpsd(address)
        }
        if let gpsd { return .gpsd(gpsd) }
        if let location { return .fixed(location) }
        return .gpsd(GPSDAddress("127.0.0.1")!)
    }

    /// "gpsd at 127.0.0.1:2947", "the config's location".
    public var name: String {
        switch self {
        case .gpsd(let address): "gpsd at \(address)"
        case .fixed: "the config's location"
        }
    }

    /// The first fix within `wait`, else the status at its end (searching, no fix, gpsd unreachable).
    public func firstFix(within wait: Duration) async -> LocationStatus {
        let address: GPSDAddress
        switch self {
        case .fixed(let point): return .fixed(point)
        case .gpsd(let gpsd): address = gpsd
        }
        let (statuses, continuation) = AsyncStream.makeStream(of: LocationStatus.self, bufferingPolicy: .bufferingNewest(64))
        let watcher = GPSDWatcher(address: address) { continuation.yield($0) }
        watcher.start()
        let deadline = Task {
            try? await Task.sleep(for: wait)
            continuation.finish()
        }
        var last = LocationStatus.searching
        for await status in statuses {
            last = status
            if case .fix = status { break }
        }
        deadline.cancel()
        watcher.stop()
        continuation.finish()
        return last
    }
}

/// GPSD_HOST set to something that is not an address.
public struct LocationSourceError: Error, Sendable, Equatable {
    public let host: String
    public init(host: String) { self.host = host }
    public var sentence: String { "GPSD_HOST is host:port, such as 127.0.0.1:2947, not “\(TerminalText.sanitizedLine(host, maxLength: 80))”." }
}
