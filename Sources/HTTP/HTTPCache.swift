import Foundation
import MapbookCore

/// Answers kept on disk with their validators (`ETag`, `Last-Modified`), one folder per portal,
/// at most `limit` bytes, least recently used evicted first. The next request for the same
/// address asks whether it changed (`If-None-Match`, `If-Modified-Since`); a 304 costs no body and
/// the kept one is used. Keys are the address's path and query, so a portal's answers are found
/// again however its host is reached; an answer to a signed-in request is kept apart from the
/// anonymous one for the same address (they can differ: private items), and is only ever asked
/// about again signed in. Credentials travel in headers, never in keys or files; an address that
/// carries a `token` parameter is never kept.
public final class HTTPCache: Sendable {
    public struct Entry: Sendable, Equatable {
        public var body: Data
        public var etag: String?
        public var lastModified: String?
        public var storedAt: Date
    }

    private let files: BoundedDiskCache
    public var directory: String { files.directory }

    public init(directory: String, limit: Int64 = 16 << 20) {
        files = BoundedDiskCache(directory: directory, limit: limit, suffix: ".answer")
    }

    /// What is kept for `url`, if anything (and it is for this address: the key is checked).
    public func entry(for url: URL, signedIn: Bool = false) -> Entry? {
        guard let key = Self.key(url, signedIn: signedIn), let data = files.read(Self.fileName(key)),
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

    /// Keeps a successful answer that has a validator (without one it could never be checked).
    public func keep(_ response: HTTPResponse, for url: URL, signedIn: Bool = false) {
        guard response.status == 200, let key = Self.key(url, signedIn: signedIn),
              response.headers["etag"] != nil || response.headers["last-modified"] != nil,
              response.headers["cache-control"]?.lowercased().contains("no-store") != true else { return }
        var meta: [String: JSONValue] = ["key": .string(key), "storedAt": .number((Date().timeIntervalSince1970 * 1000).rounded())]
        meta["etag"] = response.headers["etag"].map(JSONValue.string)
        meta["lastModified"] = response.headers["last-modified"].map(JSONValue.string)
        // One line of JSON (the encoder escapes newlines), then the body as it came.
        guard let head = try? JSONEncoder().encode(JSONValue.object(meta)) else { return }
        files.write(Self.fileName(key), head + Data([0x0A]) + response.body)
    }

    /// Forgets what is kept for `url` (the kept body turned out to be unusable).
    public func forget(_ url: URL, signedIn: Bool = false) {
        if let key = Self.key(url, signedIn: signedIn) { files.remove(Self.fileName(key)) }
    }

    /// The path and query, marked when the request was signed in; nil for an address with a token
    /// in it, which is never kept.
    static func key(_ url: URL, signedIn: Bool = false) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        if components.queryItems?.contains(where: { $0.name.lowercased() == "token" }) == true { return nil }
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "") + (signedIn ? " signed-in" : "")
    }

    private static func fileName(_ key: String) -> String { BoundedDiskCache.name(for: key) + ".answer" }
}
