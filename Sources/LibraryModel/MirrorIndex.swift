import Foundation
import MapbookCore
import ArcGISModel

/// `mirror.json`: what a fleet mirror holds (`mapbook stage` writes it, devices read it). Every
/// staged file is named by its path under the mirror — the REST path it answers, as
/// `MirrorLayout` spells it — with its size and SHA-256, so a device checks every byte it takes.
public struct MirrorIndex: Sendable, Equatable, Codable {
    /// The layout's version: a device refuses an index it does not know.
    public static let currentFormat = 1

    public var format: Int
    /// The portal everything was staged from (its root, no token).
    public var portal: String
    /// Whether content that is not public was staged (`--include-private`): the mirror serves it
    /// to anyone who can reach it.
    public var includesPrivate: Bool
    public var webMaps: [StagedWebMap]
    /// Portal items of type Mobile Map Package staged on their own.
    public var mobileMapPackages: [StagedPackage]

    public init(portal: String, includesPrivate: Bool = false, webMaps: [StagedWebMap] = [], mobileMapPackages: [StagedPackage] = []) {
        format = Self.currentFormat; self.portal = portal; self.includesPrivate = includesPrivate; self.webMaps = webMaps
        self.mobileMapPackages = mobileMapPackages
    }

    private enum CodingKeys: String, CodingKey { case format, portal, includesPrivate, webMaps, mobileMapPackages }

    /// A list the folder does not have yet reads as empty (a mirror staged before mobile map
    /// packages could be).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(Int.self, forKey: .format)
        portal = try c.decode(String.self, forKey: .portal)
        includesPrivate = try c.decodeIfPresent(Bool.self, forKey: .includesPrivate) ?? false
        webMaps = try c.decodeIfPresent([StagedWebMap].self, forKey: .webMaps) ?? []
        mobileMapPackages = try c.decodeIfPresent([StagedPackage].self, forKey: .mobileMapPackages) ?? []
    }

    /// The staged copy of an item's data (a package's bytes), if any web map or package entry holds one.
    public func package(_ id: ItemID) -> MirrorFile? {
        let path = MirrorLayout.data(of: id)
        return allFiles.first { $0.path == path }
    }

    public func webMap(_ id: ItemID) -> StagedWebMap? { webMaps.first { $0.id == id } }

    /// The file at `path`, and when the entry that holds it was staged.
    public func file(at path: String) -> (file: MirrorFile, stagedAt: Date)? {
        for entry in webMaps { if let file = entry.files.first(where: { $0.path == path }) { return (file, entry.stagedAt) } }
        for entry in mobileMapPackages { if let file = entry.files.first(where: { $0.path == path }) { return (file, entry.stagedAt) } }
        return nil
    }

    public func mobileMapPackage(_ id: ItemID) -> StagedPackage? { mobileMapPackages.first { $0.id == id } }

    /// Puts a web map's entry in, in place of the one it had.
    public mutating func put(_ entry: StagedWebMap) { Self.put(entry, in: &webMaps) }

    /// Puts a mobile map package's entry in, in place of the one it had.
    public mutating func put(_ entry: StagedPackage) { Self.put(entry, in: &mobileMapPackages) }

    /// Entries are kept sorted by id, so the file reads the same for the same content.
    private static func put<Entry: Identifiable>(_ entry: Entry, in list: inout [Entry]) where Entry.ID == ItemID {
        list.removeAll { $0.id == entry.id }
        list.append(entry)
        list.sort { $0.id.rawValue < $1.id.rawValue }
    }

    /// Every path some entry names.
    public var paths: Set<String> { Set(allFiles.map(\.path)) }

    private var allFiles: [MirrorFile] { webMaps.flatMap(\.files) + mobileMapPackages.flatMap(\.files) }
}

/// A mobile map package item as staged: its item, thumbnail and bytes.
public struct StagedPackage: Sendable, Equatable, Codable, Identifiable {
    public var id: ItemID
    public var title: String
    public var stagedAt: Date
    public var files: [MirrorFile]

    public init(id: ItemID, title: String, stagedAt: Date, files: [MirrorFile]) {
        self.id = id; self.title = title; self.stagedAt = stagedAt; self.files = files
    }
}

/// One web map as staged: when, which areas, and every file its answers and packages take.
public struct StagedWebMap: Sendable, Equatable, Codable, Identifiable {
    public var id: ItemID
    public var title: String
    public var stagedAt: Date
    /// The areas staged (all of the web map's, or those named).
    public var areas: [ItemID]
    public var files: [MirrorFile]

    public init(id: ItemID, title: String, stagedAt: Date, areas: [ItemID], files: [MirrorFile]) {
        self.id = id; self.title = title; self.stagedAt = stagedAt; self.areas = areas; self.files = files
    }
}

/// A staged file: where it is, how big, its SHA-256 (lowercase hex), and for a package the item
/// version it is and how it was checked when staged ("zip CRC-32", "size, SQLite check").
public struct MirrorFile: Sendable, Equatable, Codable {
    public var path: String
    public var size: Int64
    public var sha256: String
    public var item: ItemID?
    /// The item's `modified`, epoch milliseconds, for package data.
    public var modified: Int64?
    public var verifiedBy: String?

    public init(path: String, size: Int64, sha256: String, item: ItemID? = nil, modified: Int64? = nil, verifiedBy: String? = nil) {
        self.path = path; self.size = size; self.sha256 = sha256; self.item = item; self.modified = modified; self.verifiedBy = verifiedBy
    }
}
