import Foundation
import MapbookCore
import Geometry

/// Whether the portal has finished preparing a map area's packages. Only `complete` areas download.
public enum PackagingStatus: Sendable, Equatable, Codable {
    case complete
    case processing
    case failed
    /// A value we do not know; treated as not downloadable.
    case other(String)
    /// The item carried no status at all.
    case unknown

    public init(portalValue: String?) {
        switch portalValue?.lowercased() {
        case nil: self = .unknown
        case "complete", "completed": self = .complete
        case "processing", "packaging", "pending": self = .processing
        case "failed", "error": self = .failed
        case let value?: self = .other(value)
        }
    }

    public var isDownloadable: Bool { self == .complete }

    /// How listings name it, in the browser's words: ready, packaging, packaging failed.
    public var label: String {
        switch self {
        case .complete: "ready"
        case .processing: "packaging"
        case .failed: "packaging failed"
        case .other(let value): value
        case .unknown: "no status"
        }
    }

    /// The portal's word, for JSON.
    public var name: String {
        switch self {
        case .complete: "complete"
        case .processing: "processing"
        case .failed: "failed"
        case .other(let value): value
        case .unknown: "unknown"
        }
    }

    public init(from decoder: Decoder) throws {
        self.init(portalValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }
}

/// The kinds of package a map area is made of (Area2Package related items).
public enum PackageKind: Sendable, Equatable {
    case vectorTilePackage
    case tilePackage
    case sqliteGeodatabase
    case mobileMapPackage
    case other(String)

    public init(itemType: String) {
        switch itemType {
        case "Vector Tile Package": self = .vectorTilePackage
        case "Tile Package", "Compact Tile Package": self = .tilePackage
        case "SQLite Geodatabase": self = .sqliteGeodatabase
        case "Mobile Map Package": self = .mobileMapPackage
        default: self = .other(itemType)
        }
    }
}

/// One downloadable file of a map area.
public struct AreaPackage: Sendable, Equatable {
    public var item: PortalItem
    public var kind: PackageKind { PackageKind(itemType: item.type) }
    /// Bytes, as the portal reports them; nil when it did not say.
    public var size: Int64? { item.size }
    /// Where the bytes of a package exported for an area made on this device are (the server job's
    /// result); nil for a portal's package item, whose bytes are its item data.
    public var resultURL: URL? {
        guard item.properties?["exportedFrom"] != nil, let url = item.url.flatMap(URL.init(string:)),
              ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
        return url
    }

    public init(item: PortalItem) { self.item = item }
}

/// A preplanned map area: its item, packaging status and packages.
public struct MapArea: Sendable, Equatable {
    public var item: PortalItem
    public var status: PackagingStatus
    public var packages: [AreaPackage]
    /// Why the area is listed but cannot be used, when the portal's description of it (its package
    /// list) could not be read; one sentence, sanitized. The other areas of the web map are unaffected.
    public var unavailableReason: String?
    /// Listed, but its package list is still being asked for (a long listing shown as it fills).
    public var packagesPending = false

    public init(item: PortalItem, status: PackagingStatus, packages: [AreaPackage], unavailableReason: String? = nil) {
        self.item = item; self.status = status; self.packages = packages
        self.unavailableReason = unavailableReason.map { TerminalText.sanitizedLine($0, maxLength: 300) }
    }

    /// Packaged, listed in full, with at least one package.
    public var isDownloadable: Bool { unavailableReason == nil && !packagesPending && status.isDownloadable && !packages.isEmpty }

    /// Download size: the sum of the package sizes (what the phone apps show before a download).
    public var size: Int64 { packages.reduce(0) { $0 + max($1.size ?? 0, 0) } }

    /// The area's geometry in longitude/latitude (its item extent).
    public var extent: GeoExtent? { item.extent }
}
