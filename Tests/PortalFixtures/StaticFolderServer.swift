import Foundation
import LoopbackHTTP

/// A folder served as a plain bucket or a bare static host serves it: the object whose key is the
/// request's path, the query string ignored, no rewrites, 404 for anything else (and for a folder).
/// A fleet mirror must work from one as it is. `requests` lists the keys asked for.
public final class StaticFolderServer: Sendable {
    public let server: LoopbackServer
    public var url: String { server.baseURL.absoluteString }

    /// `bearer`: a private bucket's, asked of every request (403 without it).
    public init(folder: String, bearer: String? = nil) throws {
        let root = URL(fileURLWithPath: folder).standardizedFileURL.path
        server = try LoopbackServer { request in
            if let bearer, request.headers["authorization"] != "Bearer \(bearer)" { return .text("AccessDenied", status: 403) }
            let path = URL(fileURLWithPath: root + request.path).standardizedFileURL.path
            var isFolder: ObjCBool = false
            guard request.method == "GET" || request.method == "HEAD", path.hasPrefix(root + "/"),
                  FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                  let body = FileManager.default.contents(atPath: path) else {
                return .text("NoSuchKey", status: 404)
            }
            let type = path.hasSuffix(".json") ? "application/json" : "application/octet-stream"
            return LoopbackResponse(status: 200, headers: [("Content-Type", type)], body: request.method == "HEAD" ? Data() : body)
        }
    }

    /// The paths asked for, in order.
    public var requests: [String] { server.requests.map(\.path) }

    public func stop() { server.stop() }
}
