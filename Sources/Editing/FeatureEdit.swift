import Foundation
import MapbookCore

/// The layer an edit belongs to: its title as the area lists it, and the feature service layer it
/// stands for when the area says so (what a sync sends the edit to).
public struct EditLayer: Hashable, Sendable {
    public var title: String
    /// `…/FeatureServer/3`; nil when the area's copy does not name its service.
    public var serviceLayerURL: String?

    public init(title: String, serviceLayerURL: String? = nil) { self.title = title; self.serviceLayerURL = serviceLayerURL }
}

/// One saved edit: a feature added, changed or deleted, in the order the user saved it.
public struct FeatureEdit: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable { case add, update, delete }

    /// Where the edit stands. Only `pending` and `refused` edits wait for a sync; an `undone` one
    /// is kept until the next save (so `redo` can bring it back), never sent.
    public enum Status: Equatable, Sendable {
        case pending
        case synced
        /// The server's reason, kept until the user fixes or discards the edit.
        case refused(String)
        case undone
    }

    /// The journal's order: clocks go back, this does not.
    public var sequence: Int64
    public var kind: Kind
    public var layer: EditLayer
    /// The feature's GlobalID: made here for a feature added (so a sync that the server applied
    /// before the connection dropped cannot add it twice), the feature's own otherwise.
    public var globalID: String
    /// The feature's object id in the area's data, for a change or a deletion, when known.
    public var objectID: Int64?
    /// A GeoJSON geometry in WGS 84; nil when the edit leaves the shape as it is.
    public var geometry: JSONValue?
    /// The values saved, by field name, exactly as typed (shown sanitized).
    public var attributes: [String: JSONValue]
    public var savedAt: Date
    public var status: Status

    public init(sequence: Int64 = 0, kind: Kind, layer: EditLayer, globalID: String = FeatureEdit.newGlobalID(), objectID: Int64? = nil,
                geometry: JSONValue? = nil, attributes: [String: JSONValue] = [:], savedAt: Date = Date(), status: Status = .pending) {
        self.sequence = sequence; self.kind = kind; self.layer = layer; self.globalID = globalID; self.objectID = objectID
        self.geometry = geometry; self.attributes = attributes; self.savedAt = savedAt; self.status = status
    }

    /// A GlobalID as ArcGIS writes one: a UUID in braces, upper case.
    public static func newGlobalID() -> String { "{\(UUID().uuidString.uppercased())}" }

    /// Waits for a sync: pending, or refused and not yet fixed or discarded.
    public var isUnsynced: Bool {
        switch status {
        case .pending, .refused: true
        case .synced, .undone: false
        }
    }
}
