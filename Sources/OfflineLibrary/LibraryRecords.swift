import ArcGISPortal
import Foundation
import MapbookCore
import ArcGISModel

/// Beside each `.part` file: what it is a download of and how to resume it. Saved every few seconds
/// and when mapbook is stopped, and read at the next start.
public struct PartialDownload: Sendable, Equatable, Codable {
    public var url: String
    public var packageID: ItemID
    /// The package item's `modified` and size when the download began: a changed package starts over.
    public var packageModified: Int64?
    public var expectedSize: Int64?
    /// ETag, else Last-Modified, of the response being written; sent as `If-Range` on resume.
    public var validator: String?
    /// Bytes written when this was saved (the file itself is the truth; this is for people).
    public var bytesDone: Int64
    public var savedAt: Date
}

/// The on-disk form of the catalog's area list.
struct StoredAreas: Codable {
    struct Area: Codable {
        var item: JSONValue
        var packages: [JSONValue]
        /// `MapArea.unavailableReason`, when the portal's package list could not be read.
        var unavailable: String?
    }
    var syncedAt: Date?
    var areas: [Area]
}
