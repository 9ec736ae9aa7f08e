import Foundation
import Synchronization

public struct LoopbackRequest: Sendable {
    public var method: String
    /// The request target as sent: path and query.
    public var target: String
    /// The percent-decoded path.
    public var path: String
    /// Query parameters, form-decoded; a repeated name keeps its last value.
    public var query: [String: String]
    /// Header fields with lowercased names.
    public var headers: [String: String]
    public var body: Data
}

/// A response, and how to deliver it: the delivery options are the faults that tests and the sample
/// portal inject (slow links, dropped connections, stalls, lying `Content-Length`).
public struct LoopbackResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data
    public var delivery: Delivery

    public struct Delivery: Sendable {
        /// Caps the body's send rate.
        public var bytesPerSecond: Int?
        /// Closes the connection after this many body bytes.
        public var closeAfterBodyBytes: Int?
        /// Stops sending after this many body bytes and holds the connection open for `stallDuration`.
        public var stallAfterBodyBytes: Int?
        public var stallDuration: Duration = .seconds(30)
        /// Stops after this many body bytes until the gate opens, then sends the rest: a transfer
        /// seen part way, however loaded the machine.
        public var holdAfterBodyBytes: (count: Int, gate: LoopbackGate)?
        /// Sends this `Content-Length` instead of the body's real length.
        public var declaredLength: Int?
        /// Closes the connection without answering at all.
        public var hangUp = false

        public init() {}
    }

    public init(status: Int, headers: [(String, String)] = [], body: Data = Data(), delivery: Delivery = Delivery()) {
        self.status = status; self.headers = headers; self.body = body; self.delivery = delivery
    }

    public static func json(_ text: String, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")],
                         body: Data(text.utf8))
    }

    public static func json(data: Data, status: Int = 200) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: data)
    }

    public static func text(_ text: String, status: Int) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [("Content-Type", "text/plain")], body: Data(text.utf8))
    }

    public static func redirect(to location: String, status: Int = 302) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [("Location", location)])
    }

    /// Serves `data` as a static file does: `ETag`, `Last-Modified`, `Accept-Ranges`, a single
    /// `Range: bytes=a-b` / `a-` / `-n` answered with 206 (or 416), and `If-Range` honoured.
    public static func file(_ data: Data, for request: LoopbackRequest, etag: String, lastModified: Date,
                            contentType: String = "application/octet-stream") -> LoopbackResponse {
        let modified = httpDate(lastModified)
        var headers = [("Content-Type", contentType), ("ETag", etag), ("Last-Modified", modified),
                       ("Accept-Ranges", "bytes")]
        let size = data.count
        guard let rangeHeader = request.headers["range"],
              request.headers["if-range"].map({ $0 == etag || $0 == modified }) ?? true else {
            return LoopbackResponse(status: 200, headers: headers, body: data)
        }
        guard let (start, end) = parseRange(rangeHeader, size: size) else {
            headers.append(("Content-Range", "bytes */\(size)"))
            return LoopbackResponse(status: 416, headers: headers)
        }
        headers.append(("Content-Range", "bytes \(start)-\(end)/\(size)"))
        return LoopbackResponse(status: 206, headers: headers, body: data.subdata(in: start..<(end + 1)))
    }

    static func parseRange(_ header: String, size: Int) -> (Int, Int)? {
        guard header.hasPrefix("bytes="), !header.contains(","), size > 0 else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        if spec[0].isEmpty {
            guard let suffix = Int(spec[1]), suffix > 0 else { return nil }
            return (max(0, size - suffix), size - 1)
        }
        guard let start = Int(spec[0]), start < size else { return nil }
        let end = spec[1].isEmpty ? size - 1 : min(Int(spec[1]) ?? -1, size - 1)
        return end >= start ? (start, end) : nil
    }

    public static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

/// Closed until opened, then open for good: what a held response waits for.
public final class LoopbackGate: Sendable {
    private let isOpen = Mutex(false)

    public init() {}

    public func open() { isOpen.withLock { $0 = true } }

    public var opened: Bool { isOpen.withLock { $0 } }
}
