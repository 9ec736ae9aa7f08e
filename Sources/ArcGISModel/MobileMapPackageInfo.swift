import Foundation
import MapbookCore

/// What a mobile map package says of itself: `<name>.info` (ArcGIS Pro's first packages) or
/// `package.info` (later ones), JSON at the package's root.
public struct MobileMapPackageInfo: Sendable, Equatable {
    public var title: String
    public var snippet: String?
    public var description: String?
    /// "Mobile Map Package" in every real one; kept to tell a scene package apart.
    public var type: String?
    /// The maps it holds, by name, in the order the package gives.
    public var mapNames: [String]
    /// The thumbnail's image bytes, from its `data:` URI.
    public var thumbnail: Data?
    public var created: Date?
    public var modified: Date?

    public init(title: String, snippet: String? = nil, description: String? = nil, type: String? = nil, mapNames: [String] = [],
                thumbnail: Data? = nil, created: Date? = nil, modified: Date? = nil) {
        self.title = title; self.snippet = snippet; self.description = description; self.type = type
        self.mapNames = mapNames; self.thumbnail = thumbnail; self.created = created; self.modified = modified
    }

    /// Forgiving as the portal decoding is: any field may be missing; a map may be named by a
    /// string or by an object with a `name` or `title`.
    public init(json: JSONValue, fallbackTitle: String) {
        let maps = json["maps"]?.array.compactMap { $0.string ?? $0["name"]?.string ?? $0["title"]?.string } ?? []
        self.init(title: json["title"]?.string.flatMap { $0.isEmpty ? nil : $0 } ?? fallbackTitle,
                  snippet: json["snippet"]?.string ?? json["summary"]?.string,
                  description: json["description"]?.string,
                  type: json["type"]?.string,
                  mapNames: Array(maps.prefix(1_000)),
                  thumbnail: json["thumbnail"]?.string.flatMap(Self.dataURIBytes),
                  created: json["created"]?.epochMillisecondsDate,
                  modified: json["modified"]?.epochMillisecondsDate)
    }

    /// The bytes of a base64 `data:` URI; nil for anything else, or for a URI over 6 MiB (about 4.5 MiB of image).
    static func dataURIBytes(_ uri: String) -> Data? {
        guard uri.hasPrefix("data:"), uri.utf8.count <= 6 << 20, let comma = uri.firstIndex(of: ","),
              uri[..<comma].hasSuffix(";base64") else { return nil }
        return Data(base64Encoded: String(uri[uri.index(after: comma)...]), options: .ignoreUnknownCharacters)
    }
}

/// A packaged layer's `path`: a file beside the map (`file:./data.geodatabase?itemId=2`) and, for
/// a geodatabase, the service layer id of its table.
public struct PackagedDataPath: Sendable, Equatable {
    /// The file, relative to the map's folder, as written (percent escapes decoded).
    public var file: String
    /// `GDB_ServiceItems.ItemId` of the layer's table.
    public var itemID: Int?

    public init(file: String, itemID: Int? = nil) { self.file = file; self.itemID = itemID }

    /// Nil for a path that names no file.
    public init?(_ path: String) {
        var rest = Substring(path)
        if rest.lowercased().hasPrefix("file:") { rest = rest.dropFirst(5) }
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = parts.first.map(String.init)?.removingPercentEncoding ?? parts.first.map(String.init), !name.isEmpty else { return nil }
        file = name
        itemID = parts.count > 1 ? parts[1].split(separator: "&").lazy.compactMap { pair -> Int? in
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].lowercased() == "itemid" else { return nil }
            return Int(kv[1])
        }.first : nil
    }
}
