import Foundation

/// Header fields, looked up case-insensitively; repeated fields keep their last value.
public struct HTTPHeaders: Sendable, Equatable {
    private var fields: [String: String] = [:]

    public init(_ pairs: [(String, String)] = []) {
        for (name, value) in pairs { self[name] = value }
    }

    public subscript(name: String) -> String? {
        get { fields[name.lowercased()] }
        set { fields[name.lowercased()] = newValue }
    }
}

public struct HTTPRequest: Sendable {
    public var url: URL
    /// `GET`, `HEAD` or `POST`.
    public var method: String
    /// Extra request headers. Credentials belong here (never in the URL), so they never reach logs.
    public var headers: [(String, String)]
    /// Form-encoded POST body.
    public var body: Data?
    /// The most this request may take in all, retries included; nil: the client's `deadline`.
    public var deadline: Duration?
    /// The largest answer taken into memory for this request; nil: the client's `maxBodyBytes`.
    public var maxBodyBytes: Int?
    /// Given up (`HTTPError.tooSlow`) when fewer bytes than this arrive in any window of this length:
    /// for a source that has a faster one behind it (a fleet mirror, the portal).
    public var minimumRate: (bytesPerSecond: Int, window: Duration)?
    /// False for a request the server must not get twice (a POST it cannot tell it has seen, such
    /// as adding an attachment): no retry once it may have reached the server; the caller looks
    /// before sending again.
    public var mayRetry = true

    public init(url: URL, method: String = "GET", headers: [(String, String)] = [], body: Data? = nil) {
        self.url = url; self.method = method; self.headers = headers; self.body = body
    }

    /// The first header whose name or value holds a line break, NUL or other control character:
    /// sent, it would end the header early and start another (header injection).
    var unsafeHeader: String? {
        headers.first { name, value in
            (name + value).unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }
                || name.isEmpty || name.contains(":") || name.contains(" ")
        }?.0
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data
    /// Where the request ended up after redirects.
    public var url: URL

    public init(status: Int, headers: HTTPHeaders, body: Data, url: URL) {
        self.status = status; self.headers = headers; self.body = body; self.url = url
    }
}

/// How far a transfer has come. For resumed downloads, `bytes` counts the bytes already on disk.
public struct TransferProgress: Sendable, Equatable {
    public var bytes: Int64
    /// The whole file's size when the server said; nil for unknown.
    public var expectedTotal: Int64?
    /// The ETag (else Last-Modified) of the response being written: what a resume after a crash
    /// must send as `If-Range`, so it is saved with the progress.
    public var validator: String?

    public init(bytes: Int64, expectedTotal: Int64?, validator: String? = nil) {
        self.bytes = bytes; self.expectedTotal = expectedTotal; self.validator = validator
    }
}

/// Where to pick up an interrupted download.
public struct ResumePoint: Sendable, Equatable {
    /// Bytes already in the file; the request asks for the rest.
    public var offset: Int64
    /// The ETag (or else Last-Modified) of the response that wrote those bytes. Sent as `If-Range`, so
    /// a file that changed on the server is sent whole rather than spliced.
    public var validator: String?

    public init(offset: Int64, validator: String?) { self.offset = offset; self.validator = validator }
}

/// What a finished download wrote.
public struct DownloadResult: Sendable, Equatable {
    /// Size of the file on disk.
    public var size: Int64
    public var etag: String?
    public var lastModified: String?
    /// True when a resume was asked for but the server sent the whole file, so it was written anew.
    public var restartedFromZero: Bool
    /// The offset the final, successful response continued from.
    public var resumedFrom: Int64

    /// The validator to keep for a later resume: the ETag, else Last-Modified.
    public var validator: String? { etag ?? lastModified }
}

public struct HTTPConfiguration: Sendable {
    public var userAgent: String
    /// Time allowed to connect (DNS, TCP, TLS).
    public var connectTimeout: Duration
    /// A transfer that receives no byte for this long (waiting for the answer included) is abandoned
    /// as stalled, so a dead link ends instead of hanging.
    public var stallTimeout: Duration
    /// In-memory responses larger than this are refused (downloads to files have no cap).
    public var maxBodyBytes: Int
    public var maxRedirects: Int
    public var retry: RetryPolicy
    /// For downloads into files; by default `.downloads` with the standard policy, else `retry`.
    public var downloadRetry: RetryPolicy
    /// The most an in-memory request may take in all, retries included: the stall watchdog alone
    /// never ends a server that sends one byte every few seconds. nil for no limit (downloads into
    /// files are bounded by the stall watchdog and their retry policy instead).
    public var deadline: Duration?

    public init(userAgent: String = "mapbook/\(HTTPClient.version)", connectTimeout: Duration = .seconds(15),
                stallTimeout: Duration = .seconds(30), maxBodyBytes: Int = 64 << 20,
                maxRedirects: Int = 10, retry: RetryPolicy = .standard, downloadRetry: RetryPolicy? = nil,
                deadline: Duration? = nil) {
        self.userAgent = userAgent; self.connectTimeout = connectTimeout; self.stallTimeout = stallTimeout
        self.maxBodyBytes = maxBodyBytes; self.maxRedirects = maxRedirects
        self.retry = retry
        self.downloadRetry = downloadRetry ?? (retry == .standard ? .downloads : retry)
        self.deadline = deadline
    }
}

extension Duration {
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
