import Foundation
import Synchronization

/// A small HTTP/1.1 server on 127.0.0.1, in process: one thread accepts, one thread serves each
/// connection (keep-alive). It answers through a handler and can deliver responses badly on purpose
/// (see `LoopbackResponse.Delivery`). Made for tests and the sample portal, not for the open internet.
/// It serves until `stop()`: its threads keep it alive, so dropping the last reference does not stop it.
///
/// Safety of `@unchecked Sendable`: every mutable property is read and written under `lock` (the
/// socket descriptors are handed between the accept and connection threads only under it).
public final class LoopbackServer: @unchecked Sendable {
    public typealias Handler = @Sendable (LoopbackRequest) -> LoopbackResponse

    public let port: UInt16
    /// The loopback address it listens on: 127.0.0.1 unless another was asked for (a second "host").
    public let address: String
    public var baseURL: URL { URL(string: "http://\(address):\(port)")! }

    private var listener: Int32
    private let handler: Handler
    private let lock = NSLock()
    private var stopped = false
    private var suspended = false
    /// Which listening socket is current; an accept thread of an older one stops.
    private var generation = 0
    private var connections: Set<Int32> = []
    private var log: [LoopbackRequest] = []

    /// Binds `address`:`port` (0 picks a free port) and starts serving. `address` must be a loopback
    /// address (127.0.0.0/8).
    public init(address: String = "127.0.0.1", port: UInt16 = 0, handler: @escaping Handler) throws {
        precondition(address.hasPrefix("127."), "a loopback server listens on loopback addresses only")
        self.handler = handler
        self.address = address
        var (fd, bound) = try Self.listen(on: port, address: address)
        // A free port that a suspended or stopped server keeps: take another (holding this one meanwhile).
        var declined: [Int32] = []
        while port == 0, Self.reserved.withLock({ $0.contains(bound) }), declined.count < 16 {
            declined.append(fd)
            (fd, bound) = try Self.listen(on: 0, address: address)
        }
        declined.forEach { close($0) }
        self.port = bound
        self.listener = fd
        startAccepting(fd, generation: 0)
    }

    private static func listen(on port: UInt16, address host: String) throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackServerError.socket(errno) }
        // Before bind only for a chosen port (a server restarted on its old port). With port 0 the
        // kernel may hand two SO_REUSEADDR sockets that are bound but not yet listening the same
        // port, and two servers would then share one port's connections.
        var yes: Int32 = 1
        if port != 0 { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw LoopbackServerError.bind(port: port, errno: code)
        }
        // Set once listening, so accepted connections inherit it: after an outage their TIME_WAIT
        // remains must not keep the server from listening on its port again.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    private func startAccepting(_ fd: Int32, generation: Int) {
        let thread = Thread { [self] in acceptLoop(fd, generation: generation) }
        thread.name = "loopback.accept"
        thread.start()
    }

    /// An outage: closes the listening socket and every open connection, so clients are refused
    /// (ECONNREFUSED) until `resume()` listens on the same port again. Meanwhile the port is
    /// reserved: no other server in this process is given it, so none receives this one's clients.
    public func suspend() {
        lock.withLock {
            guard !stopped, !suspended else { return }
            suspended = true
            generation += 1
            Self.reserved.withLock { _ = $0.insert(port) }
            // Woken by this, the accept thread closes the socket itself (see `acceptLoop`).
            shutdown(listener, Int32(SHUT_RDWR))
            shutDownConnections()
        }
    }

    public func resume() throws {
        try lock.withLock {
            guard !stopped, suspended else { return }
            // The old socket is closed by its accept thread as it wakes: give it a moment.
            var attempt = 0
            var fd: Int32 = -1
            while fd < 0 {
                do { (fd, _) = try Self.listen(on: port, address: address) } catch {
                    attempt += 1
                    if attempt == 40 { throw error }
                    Thread.sleep(forTimeInterval: 0.025)
                }
            }
            listener = fd
            suspended = false
            Self.reserved.withLock { _ = $0.remove(port) }
            startAccepting(fd, generation: generation)
        }
    }

    /// Ports of suspended and stopped servers, kept from servers that ask for any free port.
    private static let reserved = Mutex<Set<UInt16>>([])

    public var isSuspended: Bool { lock.withLock { suspended } }

    /// Every request received so far, in order.
    public var requests: [LoopbackRequest] { lock.withLock { log } }

    /// Stops accepting and closes every open connection.
    public func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            // Never given out again in this process: a client may still hold pooled connections to
            // this port, and must not reach another server through it.
            Self.reserved.withLock { _ = $0.insert(port) }
            if !suspended { shutdown(listener, Int32(SHUT_RDWR)) }
            shutDownConnections()
        }
    }

    /// Under the lock: a connection's thread closes its socket under the same lock, so a number
    /// here is still that connection's, not a reused descriptor of some other socket.
    private func shutDownConnections() {
        for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Accepts until its socket is shut down (stop, or an outage), then closes that socket itself:
    /// closed any earlier, its descriptor number could be reused by another server's socket, and
    /// this thread would take that server's connections.
    private func acceptLoop(_ listener: Int32, generation: Int) {
        defer { close(listener) }
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            let admitted = lock.withLock { () -> Bool in
                guard !stopped, !suspended, generation == self.generation else { return false }
                connections.insert(fd)
                return true
            }
            guard admitted else { close(fd); return }
            // A response is its head, then its body: without this, Nagle's algorithm holds the body
            // until the client acknowledges the head, which it delays 40 ms.
            var noDelay: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { [self] in
                serve(fd)
                lock.withLock {
                    connections.remove(fd)
                    close(fd)
                }
            }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        var reader = SocketReader(fd: fd)
        while !isStopped, let request = reader.readRequest() {
            lock.withLock { log.append(request) }
            let response = handler(request)
            guard respond(response, to: request, on: fd) else { return }
            if request.headers["connection"]?.lowercased() == "close" { return }
        }
    }

    /// Writes `response`; false when the connection must close afterwards.
    private func respond(_ response: LoopbackResponse, to request: LoopbackRequest, on fd: Int32) -> Bool {
        let delivery = response.delivery
        if delivery.hangUp { return false }
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(delivery.declaredLength ?? response.body.count)\r\n\r\n"
        guard sendAll(fd, Data(head.utf8)) else { return false }
        if request.method == "HEAD" { return true }

        var body = response.body
        var cut = false
        if let limit = delivery.closeAfterBodyBytes, limit < body.count { body = body.prefix(limit); cut = true }
        var stall = false
        if let limit = delivery.stallAfterBodyBytes, limit < body.count { body = body.prefix(limit); stall = true }
        if let (count, gate) = delivery.holdAfterBodyBytes, count < body.count, !gate.opened {
            guard send(body.prefix(count), on: fd, bytesPerSecond: delivery.bytesPerSecond) else { return false }
            while !isStopped, !gate.opened { Thread.sleep(forTimeInterval: 0.01) }
            body = body.dropFirst(count)
        }
        guard send(body, on: fd, bytesPerSecond: delivery.bytesPerSecond) else { return false }
        if stall { pause(for: delivery.stallDuration); return false }
        if cut { return false }
        // A declared length longer than the body leaves the client waiting: close to end it.
        return (delivery.declaredLength ?? body.count) == body.count
    }

    private func send(_ body: Data, on fd: Int32, bytesPerSecond: Int?) -> Bool {
        guard let rate = bytesPerSecond, rate > 0 else { return sendAll(fd, body) }
        let slice = max(1, rate / 20)  // 20 slices a second
        var offset = 0
        let started = ContinuousClock.now
        while offset < body.count {
            if isStopped { return false }
            let end = min(offset + slice, body.count)
            guard sendAll(fd, body[offset..<end]) else { return false }
            offset = end
            let due = started + .seconds(Double(offset) / Double(rate))
            let wait = due - ContinuousClock.now
            if wait > .zero { Thread.sleep(forTimeInterval: wait.timeInterval) }
        }
        return true
    }

    private func pause(for duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while !isStopped, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
    }

    private func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0 { if errno == EINTR { continue }; return false }
                sent += n
            }
            return true
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 416: "Range Not Satisfiable"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

public enum LoopbackServerError: Error, CustomStringConvertible {
    case socket(Int32)
    case bind(port: UInt16, errno: Int32)

    public var description: String {
        switch self {
        case .socket(let code): "Cannot open a socket: \(String(cString: strerror(code)))."
        case .bind(let port, let code): "Cannot listen on 127.0.0.1:\(port): \(String(cString: strerror(code)))."
        }
    }
}

/// Reads requests off a socket: head up to the blank line, then `Content-Length` bytes of body.
struct SocketReader {
    let fd: Int32
    private var buffer = Data()
    private static let maxHead = 64 << 10
    private static let maxBody = 16 << 20

    init(fd: Int32) { self.fd = fd }

    mutating func readRequest() -> LoopbackRequest? {
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while true {
            headEnd = buffer.range(of: separator)
            if headEnd != nil { break }
            guard buffer.count < Self.maxHead, fill() else { return nil }
        }
        let head = String(decoding: buffer[buffer.startIndex..<headEnd!.lowerBound], as: UTF8.self)
        buffer = Data(buffer[headEnd!.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = min(Int(headers["content-length"] ?? "0") ?? 0, Self.maxBody)
        while buffer.count < length { guard fill() else { return nil } }
        let body = Data(buffer.prefix(length))
        buffer = Data(buffer.dropFirst(length))

        let target = String(requestLine[1])
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (s: Substring) in s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
                query[decode(kv[0])] = kv.count == 2 ? decode(kv[1]) : ""
            }
        }
        return LoopbackRequest(method: String(requestLine[0]), target: target, path: path, query: query,
                               headers: headers, body: body)
    }

    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }
}

private extension Duration {
    var timeInterval: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
