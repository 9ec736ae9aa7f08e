import Foundation
import MapbookCore

/// What a sync would send for an area's unsynced edits: one change per feature, its edits folded
/// together in the order saved — a feature added then changed is one add with its last values and
/// shape, a feature added then deleted is nothing, a feature changed twice is one update, a change
/// then a deletion is the deletion. `edits diff` shows these; a sync sends them.
public struct PendingChange: Equatable, Sendable {
    public enum Kind: String, Sendable { case add, update, delete }

    public var kind: Kind
    public var layer: EditLayer
    /// The feature's GlobalID: made here for an add, the feature's own (when it has one) otherwise.
    public var globalID: String
    /// The object id of the feature changed or deleted, as the area's data numbers it; nil for an add.
    public var objectID: Int64?
    /// The shape to send (GeoJSON, WGS 84); nil when it stays.
    public var geometry: JSONValue?
    public var attributes: [String: JSONValue]
    /// The journal's edits this change stands for, in order.
    public var sequences: [Int64]
    /// Why the server refused one of them, when it did.
    public var refused: String?
    /// The changed fields' values before the first of these edits, where known: what the server's
    /// are compared with to find a conflict.
    public var original: [String: JSONValue]

    public init(kind: Kind, layer: EditLayer, globalID: String, objectID: Int64?, geometry: JSONValue?, attributes: [String: JSONValue],
                sequences: [Int64], refused: String?, original: [String: JSONValue] = [:]) {
        self.kind = kind; self.layer = layer; self.globalID = globalID; self.objectID = objectID; self.geometry = geometry
        self.attributes = attributes; self.sequences = sequences; self.refused = refused; self.original = original
    }

    /// The changes `edits` amount to, layer by layer in the order first edited, features in the
    /// order first edited within a layer.
    public static func of(_ edits: [FeatureEdit]) -> [PendingChange] {
        var changes: [PendingChange] = []
        func key(_ edit: FeatureEdit) -> String {
            if let objectID = edit.objectID, objectID >= 0 { return edit.layer.title + "\u{0}oid:\(objectID)" }
            return edit.layer.title + "\u{0}gid:" + edit.globalID
        }
        var index: [String: Int] = [:]
        var dropped: Set<Int> = []
        for edit in edits where edit.isUnsynced {
            let reason: String? = if case .refused(let why) = edit.status { why } else { nil }
            let id = key(edit)
            guard let at = index[id], !dropped.contains(at) else {
                let kind: Kind = switch edit.kind { case .add: .add; case .update: .update; case .delete: .delete }
                index[id] = changes.count
                // An added feature is found by its GlobalID from then on, whatever number it had here.
                if edit.kind == .add { index[edit.layer.title + "\u{0}gid:" + edit.globalID] = changes.count }
                changes.append(PendingChange(kind: kind, layer: edit.layer, globalID: edit.globalID,
                                             objectID: edit.kind == .add ? nil : edit.objectID, geometry: edit.geometry,
                                             attributes: edit.attributes, sequences: [edit.sequence], refused: reason,
                                             original: edit.kind == .update ? edit.original ?? [:] : [:]))
                continue
            }
            changes[at].sequences.append(edit.sequence)
            if let reason { changes[at].refused = reason }
            switch edit.kind {
            case .add:
                // Imported twice under one GlobalID: the later one stands.
                changes[at].geometry = edit.geometry ?? changes[at].geometry
                changes[at].attributes.merge(edit.attributes) { _, new in new }
            case .update:
                if let geometry = edit.geometry { changes[at].geometry = geometry }
                changes[at].attributes.merge(edit.attributes) { _, new in new }
                // A field's value before the first change to it, on a feature not added here.
                if changes[at].kind == .update { changes[at].original.merge(edit.original ?? [:]) { first, _ in first } }
            case .delete:
                if changes[at].kind == .add {
                    // Added and deleted before any sync: nothing to send.
                    dropped.insert(at)
                } else {
                    changes[at].kind = .delete
                    changes[at].geometry = nil
                    changes[at].attributes = [:]
                }
            }
        }
        return changes.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
    }
}
