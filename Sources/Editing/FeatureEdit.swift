import Foundation
import ArcGISModel
import Geometry
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
    /// A change's fields as the area held them before it, by field name: what a sync compares the
    /// server's values with to find a conflict. Nil when not known (an add; an edit saved before
    /// mapbook kept them).
    public var original: [String: JSONValue]?

    public init(sequence: Int64 = 0, kind: Kind, layer: EditLayer, globalID: String = FeatureEdit.newGlobalID(), objectID: Int64? = nil,
                geometry: JSONValue? = nil, attributes: [String: JSONValue] = [:], savedAt: Date = Date(), status: Status = .pending,
                original: [String: JSONValue]? = nil) {
        self.sequence = sequence; self.kind = kind; self.layer = layer; self.globalID = globalID; self.objectID = objectID
        self.geometry = geometry; self.attributes = attributes; self.savedAt = savedAt; self.status = status; self.original = original
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

/// Edits carried between devices (`mapbook edits export` / `import`): a JSON document holding
/// each area's unsynced edits exactly as saved, values unsanitized (it is data, not a screen).
public enum EditExchange {
    public static let format = "mapbook edits"
    public static let version = 1
    /// The largest file `import` reads.
    public static let largestFile = 256 << 20

    public static func document(_ areas: [(area: String, title: String, edits: [FeatureEdit])]) -> JSONValue {
        .object(["format": .string(format), "version": .number(Double(version)), "areas": .array(areas.map { entry in
            .object(["area": .string(entry.area), "title": .string(entry.title), "edits": .array(entry.edits.map(json))])
        })])
    }

    static func json(_ edit: FeatureEdit) -> JSONValue {
        .object(["kind": .string(edit.kind.rawValue), "layer": .string(edit.layer.title),
                 "serviceLayer": edit.layer.serviceLayerURL.map(JSONValue.string) ?? .null, "globalId": .string(edit.globalID),
                 "objectId": edit.objectID.map { .number(Double($0)) } ?? .null, "geometry": edit.geometry ?? .null,
                 "attributes": .object(edit.attributes), "saved": .number(edit.savedAt.timeIntervalSince1970),
                 "original": edit.original.map(JSONValue.object) ?? .null])
    }

    /// The areas and their edits a document holds; one sentence when it is not such a document.
    public static func read(_ data: Data) throws -> [(area: String, title: String, edits: [FeatureEdit])] {
        func refuse(_ why: String) -> EditJournalError { EditJournalError("This is not a file of mapbook edits mapbook can read: \(why).") }
        guard data.count <= largestFile else { throw refuse("it is larger than \(Format.bytes(Int64(largestFile)))") }
        guard let json = try? JSONValue(parsing: data), json["format"]?.string == format else { throw refuse("it is not one written by `mapbook edits export`") }
        guard let version = json["version"]?.double, version == Double(self.version) else { throw refuse("it was written by another version") }
        var areas: [(area: String, title: String, edits: [FeatureEdit])] = []
        for area in json["areas"]?.array ?? [] {
            guard let id = area["area"]?.string, id.count <= 64, id.allSatisfy({ $0.isLetter || $0.isNumber }) else { throw refuse("an area has no usable id") }
            var edits: [FeatureEdit] = []
            for (index, value) in (area["edits"]?.array ?? []).enumerated() {
                guard let edit = Self.edit(value) else { throw refuse("edit \(index + 1) of area \(id) is incomplete or malformed") }
                edits.append(edit)
            }
            areas.append((id, area["title"]?.string ?? id, edits))
        }
        return areas
    }

    static func edit(_ json: JSONValue) -> FeatureEdit? {
        guard let kind = json["kind"]?.string.flatMap(FeatureEdit.Kind.init(rawValue:)), let layer = json["layer"]?.string, layer.count <= 1_000,
              let globalID = json["globalId"], let attributes = json["attributes"]?.object,
              let saved = json["saved"]?.double, saved > 0, saved < 253_402_300_800 else { return nil }
        if case .string(let text) = globalID, text.count > 64 { return nil }
        let objectID: Int64?
        switch json["objectId"] {
        case nil, .null?: objectID = nil
        case .number(let number)?: guard number == number.rounded(), abs(number) < 9e15 else { return nil }; objectID = Int64(number)
        default: return nil
        }
        let geometry = json["geometry"].flatMap { $0 == .null ? nil : $0 }
        return FeatureEdit(kind: kind, layer: EditLayer(title: layer, serviceLayerURL: json["serviceLayer"]?.string), globalID: globalID.string ?? "",
                           objectID: objectID, geometry: geometry, attributes: attributes, savedAt: Date(timeIntervalSince1970: saved),
                           original: json["original"]?.object)
    }
}

extension FeatureEdit {
    /// "add to Places at -70.20000,43.70000", "change 3 of Counties": what the edit did, in words,
    /// as the command line and the browser say it.
    public var summary: String {
        let layer = TerminalText.sanitizedLine(self.layer.title, maxLength: 60)
        switch kind {
        case .add:
            let point = geometry.flatMap(GeoJSON.geometry).flatMap { if case .points(let p) = $0, p.count == 1 { p[0] } else { nil } }
            return "add to \(layer)" + (point.map { " at \($0.written())" } ?? "")
        case .update: return "change \(objectID.map(String.init) ?? "a feature") of \(layer)"
        case .delete: return "delete \(objectID.map(String.init) ?? "a feature") of \(layer)"
        }
    }
}
