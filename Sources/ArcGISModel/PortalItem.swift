import Foundation
import MapbookCore
import Geometry

/// An ArcGIS item id: 32 hexadecimal characters. Validating ids before they go into a URL path keeps
/// user input from turning into other paths.
public struct ItemID: Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ text: String) {
        let lower = text.lowercased()
        guard lower.utf8.count == 32, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        rawValue = lower
    }

    public var description: String { rawValue }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ItemID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an item id"))
        }
        self = id
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    /// The default web map: "Explore Maine" on ArcGIS Online.
    public static let exploreMaine = ItemID("3bc3179f17da44a0ac0bfdac4ad15664")!
}

/// A portal item as the REST API describes it (`content/items/{id}`). Only `id` is required; every
/// other field may be missing in real responses.
public struct PortalItem: Sendable, Equatable {
    public var id: ItemID
    public var title: String
    public var type: String
    public var typeKeywords: [String]
    public var owner: String?
    public var snippet: String?
    /// HTML, as authored in the portal.
    public var description: String?
    /// Relative name such as `thumbnail/thumbnail.png`.
    public var thumbnail: String?
    public var extent: GeoExtent?
    public var created: Date?
    public var modified: Date?
    /// Bytes; for packages, the file size.
    public var size: Int64?
    public var access: String?
    public var url: String?
    public var tags: [String]
    /// The item's free-form `properties` object (map areas keep their status here).
    public var properties: JSONValue?
    /// The file name of a file item (`Usa.tpkx`): its extension says what the file is.
    public var name: String?

    public init(id: ItemID, title: String, type: String, typeKeywords: [String] = [], owner: String? = nil,
                snippet: String? = nil, description: String? = nil, thumbnail: String? = nil,
                extent: GeoExtent? = nil, created: Date? = nil, modified: Date? = nil, size: Int64? = nil,
                access: String? = nil, url: String? = nil, tags: [String] = [], properties: JSONValue? = nil, name: String? = nil) {
        self.id = id; self.title = title; self.type = type; self.typeKeywords = typeKeywords
        self.owner = owner; self.snippet = snippet; self.description = description
        self.thumbnail = thumbnail; self.extent = extent; self.created = created
        self.modified = modified; self.size = size; self.access = access; self.url = url
        self.tags = tags; self.properties = properties; self.name = name
    }
}
