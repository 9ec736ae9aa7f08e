import Foundation
import MapbookCore

/// Answers kept on disk with their validators (`ETag`, `Last-Modified`), one folder per portal,
/// at most `limit` bytes, least recently used evicted first. The next request for the same
/// address asks whether it changed (`If-None-Match`, `If-Modified-Since`); a 304 costs no body and
/// the kept one is used.
///
/// Keys are the whole address — origin (scheme, host, port), path and query — so an answer from
/// one host is never handed out for another host's address, whatever their paths. An answer to a
/// signed-in request is kept apart from the anonymous one for the same address (they can differ:
/// private items), in a folder of its own that signing out empties. Files are 0600 in 0700
/// folders. Credentials travel in headers, never in keys or files; an address that carries a
/// `token` parameter is never kept, nor is a validator longer than `maxValidatorBytes` (sent back,
/// it would make every later request too large for the server).
public final class HTTPCache: Sendable {
    public struct Entry: Sendable, Equatable {
        public var body: Data
        public var etag: String?
        public var lastModified: String?
        public var storedAt: Date
    }

    /// Validators longer than this are not kept.
    public static let maxValidatorBytes = 1024

    private let anonymous: BoundedDiskCache
    private let signedIn: BoundedDiskCache
    public let directory: String

    public init(directory: String, limit: Int64 = 16 << 20) {
        self.directory = directory
        anonymous = BoundedDiskCache(directory: directory + "/anonymous", limit: limit / 2, suffix: ".answer")
        signedIn = BoundedDiskCache(directory: directory + "/signed-in", limit: limit / 2, suffix: ".answer")
    }

    private func files(signedIn: Bool) -> BoundedDiskCache { signedIn ? self.signedIn : anonymous }

    /// What is kept for `url`, if anything (and it is for this address: the key is checked).
    public func entry(for url: URL, signedIn: Bool = false) -> Entry? {
        guard let key = Self.key(url), let data = files(signedIn: signedIn).read(Self.fileName(key)),
              let newline = data.firstIndex(of: 0x0A),
              let meta = try? JSONValue(parsing: data[data.startIndex..<newline]),
              meta["key"]?.string == key else { return nil }
        return Entry(body: Data(data[(newline + 1)...]), etag: meta["etag"]?.string, lastModified: meta["lastModified"]?.string,
                     storedAt: meta["storedAt"]?.epochMillisecondsDate ?? .distantPast)
    }

    /// The headers that ask the server whether `entry` is still current.
    public static func validators(of entry: Entry) -> [(String, String)] {
        var headers: [(String, String)] = []
        if let etag = entry.etag { headers.append(("If-None-Match", etag)) }
        if let modified = entry.lastModified { headers.append(("If-Modified-Since", modified)) }
        return headers
    }

    /// Whether `response` may stand for `url`: it came from the same origin (no redirect to
    /// another host answered it).
    public static func sameOrigin(_ response: HTTPResponse, as url: URL) -> Bool {
        response.url.origin == url.origin
    }

    /// Keeps a successful answer that has a validator (without one it could never be checked) and
    /// came from the address's own origin.
    public func keep(_ response: HTTPResponse, for url: URL, signedIn: Bool = false) {
        guard response.status == 200, let key = Self.key(url), Self.sameOrigin(response, as: url),
              response.headers["etag"] != nil || response.headers["last-modified"] != nil,
              (response.headers["etag"]?.utf8.count ?? 0) <= Self.maxValidatorBytes,
              (response.headers["last-modified"]?.utf8.count ?? 0) <= Self.maxValidatorBytes,
              response.headers["cache-control"]?.lowercased().contains("no-store") != true else { return }
        var meta: [String: JSONValue] = ["key": .string(key), "storedAt": .number((Date().timeIntervalSince1970 * 1000).rounded())]
        meta["etag"] = response.headers["etag"].map(JSONValue.string)
        meta["lastModified"] = response.headers["last-modified"].map(JSONValue.string)
        // One line of JSON (the encoder escapes newlines), then the body as it came.
        guard let head = try? JSONEncoder().encode(JSONValue.object(meta)) else { return }
        files(signedIn: signedIn).write(Self.fileName(key), head + Data([0x0A]) + response.body)
    }

    /// Forgets what is kept for `url` (the kept body turned out to be unusable).
    public func forget(_ url: URL, signedIn: Bool = false) {
        if let key = Self.key(url) { files(signedIn: signedIn).remove(Self.fileName(key)) }
    }

    /// Forgets every answer to a signed-in request (signing out).
    public func forgetSignedIn() { signedIn.removeAll() }

    /// The origin, path and query; nil for an address with a token in it, which is never kept.
    static func key(_ url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        if components.queryItems?.contains(where: { $0.name.lowercased() == "token" }) == true { return nil }
        return url.origin + components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    private static func fileName(_ key: String) -> String { BoundedDiskCache.name(for: key) + ".answer" }
}
