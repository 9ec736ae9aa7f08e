import Foundation
import MapbookCore

/// Where each REST answer lives in a mirror. Paths are relative to the mirror's root, and are the
/// request's path with what a file system cannot hold beside it spelled out: an item's JSON is
/// `items/<id>/item.json` (`items/<id>` is also the folder of its data), a JSON answer of a path
/// that also serves bytes ends `.json`, and `relatedItems` is one file per relationship and
/// direction. `scripts/mirror/nginx.conf` maps requests to these names.
public enum MirrorLayout {
    public static let index = "mirror.json"
    static let items = "sharing/rest/content/items"

    /// The file that answers a REST request, as a path below the REST root (`content/items/<id>/
    /// item.json` for `content/items/<id>?f=json`), so any static host — a plain bucket, a CDN,
    /// `python3 -m http.server` — serves a mirror as it is, with no rewrites: devices ask for the
    /// files by these names. nil for a request a mirror holds no file for (the query is then left as
    /// it is). `path` is below the REST root; `query` leaves out `f`, given by `json`.
    public static func file(restPath path: [String], query: [(String, String)], json: Bool) -> [String]? {
        guard path.count >= 3, path[0] == "content", path[1] == "items", ItemID(path[2]) != nil else { return nil }
        switch Array(path.dropFirst(3)) {
        case [] where json && query.isEmpty:
            return path + ["item.json"]
        case ["data"] where query.isEmpty:
            return json ? path.dropLast() + ["data.json"] : path
        case ["relatedItems"] where json:
            let asked = Dictionary(query, uniquingKeysWith: { first, _ in first })
            let direction = asked["direction"] ?? "forward"
            guard query.allSatisfy({ ["relationshipType", "direction"].contains($0.0) }), let type = asked["relationshipType"],
                  isPlainPart(Substring(type)), ["forward", "reverse"].contains(direction)
            else { return nil }
            return path + ["\(type)-\(direction).json"]
        case let rest where rest.first == "info" && query.isEmpty:
            return path  // a thumbnail: the same file whether or not JSON was asked for
        default:
            return nil
        }
    }

    /// `content/items/<id>?f=json`.
    public static func item(_ id: ItemID) -> String { "\(items)/\(id.rawValue)/item.json" }
    /// `content/items/<id>/data?f=json` (a web map's definition).
    public static func dataJSON(of id: ItemID) -> String { "\(items)/\(id.rawValue)/data.json" }
    /// `content/items/<id>/data` (a package's bytes).
    public static func data(of id: ItemID) -> String { "\(items)/\(id.rawValue)/data" }
    /// `content/items/<id>/relatedItems?relationshipType=<type>&direction=<direction>&f=json`.
    public static func relatedItems(of id: ItemID, relationship: String, direction: String = "forward") -> String {
        "\(items)/\(id.rawValue)/relatedItems/\(relationship)-\(direction).json"
    }
    /// `content/items/<id>/info/<name>` (a thumbnail); nil for a name that is not a plain relative
    /// path (`..`, hidden parts, odd characters).
    public static func info(of id: ItemID, named name: String) -> String? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 4, parts.allSatisfy(isPlainPart) else { return nil }
        return "\(items)/\(id.rawValue)/info/\(parts.joined(separator: "/"))"
    }

    /// Letters, digits, `-`, `_` and `.`, not starting with a dot.
    private static func isPlainPart(_ part: Substring) -> Bool {
        !part.isEmpty && part.count <= 100 && part.first != "." &&
            part.unicodeScalars.allSatisfy { ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) || "-_.".unicodeScalars.contains($0) }
    }
}
