import ArcGISModel
import Foundation
import Geometry
import MapbookCore

/// The rules of sending an area's changes to their feature services with `applyEdits`, apart
/// from the network: which service and layer each change goes to, the `edits` parameter, and what
/// the server's answer says of each change. Exactly once: an add carries the GlobalID made when it
/// was saved, a sync first asks which of those the service already holds (one whose answer was
/// lost is not sent again), and the service refuses a GlobalID it holds.
public enum EditSync {
    /// Where a change goes: the feature service and the layer's id in it.
    public struct Target: Hashable, Sendable {
        public var serviceURL: String
        public var layerID: Int
        public var layerURL: String { serviceURL + "/" + String(layerID) }

        public init(serviceURL: String, layerID: Int) { self.serviceURL = serviceURL; self.layerID = layerID }
    }

    /// The feature service layer a change's layer names (`…/FeatureServer/3`), when it names one.
    public static func target(of layer: EditLayer) -> Target? {
        guard let text = layer.serviceLayerURL, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              url.host != nil, url.query == nil else { return nil }
        var parts = text.split(separator: "/", omittingEmptySubsequences: false)
        while parts.last == "" { parts.removeLast() }
        guard let last = parts.last, let id = Int(last), id >= 0, id < 100_000, parts.count > 1,
              parts[parts.count - 2].caseInsensitiveCompare("FeatureServer") == .orderedSame else { return nil }
        return Target(serviceURL: parts.dropLast().joined(separator: "/"), layerID: id)
    }

    /// What happened to one change in a sync.
    public enum Outcome: Equatable, Sendable {
        /// Added; the server's object id for it, when it said.
        case added(objectID: Int64?)
        case updated
        case deleted
        /// Already on the server: an add whose answer was lost before, or a deletion of a feature
        /// already gone.
        case alreadyThere
        /// The server's reason; the edit stays in the journal, marked, until fixed or discarded.
        case refused(String)
        /// Not sent or not answered (the network, a server error); it waits for the next sync.
        case waiting(String)
        /// A dry run: it would be sent.
        case wouldBeSent
        /// Not sent: the server changed these fields too since the area was downloaded. It waits,
        /// marked, for the user to keep theirs or take the server's (`--prefer mine|theirs`).
        case conflict([FieldConflict])
        /// The server's values kept (`--prefer theirs`): nothing of the change was left to send.
        case tookTheirs

        public var isDone: Bool {
            switch self {
            case .added, .updated, .deleted, .alreadyThere, .tookTheirs: true
            case .refused, .waiting, .wouldBeSent, .conflict: false
            }
        }
    }

    /// A field changed here and on the server since the area was downloaded, to different values.
    public struct FieldConflict: Equatable, Sendable {
        public var field: String
        public var mine: JSONValue
        public var theirs: JSONValue
        /// What both started from.
        public var was: JSONValue

        public init(field: String, mine: JSONValue, theirs: JSONValue, was: JSONValue) {
            self.field = field; self.mine = mine; self.theirs = theirs; self.was = was
        }
    }

    /// What to do with a conflict: hold the change for the user (the default), send it anyway, or
    /// keep the server's values of the fields in conflict.
    public enum ConflictPolicy: String, Sendable, CaseIterable { case ask, mine, theirs }

    /// The fields of an update the server changed too, to something else: compared with the values
    /// the area held before the change. A field whose value before is not known is not one.
    public static func conflicts(of change: PendingChange, server: [String: JSONValue]) -> [FieldConflict] {
        guard change.kind == .update else { return [] }
        return change.attributes.keys.sorted().compactMap { field in
            guard let was = change.original[field], let theirs = server[field], let mine = change.attributes[field],
                  !same(theirs, was), !same(theirs, mine) else { return nil }
            return FieldConflict(field: field, mine: mine, theirs: theirs, was: was)
        }
    }

    /// The sentence a conflict is kept with in the journal (and shown): each field side by side.
    public static func sentence(_ conflicts: [FieldConflict]) -> String {
        func shown(_ value: JSONValue) -> String {
            value == .null ? "(empty)" : "“" + TerminalText.sanitizedLine(value.string ?? value.compactText, maxLength: 80) + "”"
        }
        let fields = conflicts.map { "\(TerminalText.sanitizedLine($0.field, maxLength: 60)) is \(shown($0.mine)) here, \(shown($0.theirs)) on the server (it was \(shown($0.was)))" }
        return "Changed on the server too: " + fields.joined(separator: "; ") + ". Sync with --prefer mine or --prefer theirs."
    }

    /// Equal as values: a number the server wrote as text is the same number.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if a == b { return true }
        guard let left = a.string, let right = b.string else { return false }
        return left == right
    }

    /// The `edits` parameter of a service's `applyEdits` with `useGlobalIds=true`: per layer, adds
    /// (their GlobalID in `globalIDField`), updates (found by GlobalID) and deletes (GlobalIDs).
    /// Shapes go in WGS 84 with their spatial reference, rings wound as ArcGIS wants.
    public static func editsParameter(_ changes: [(layerID: Int, change: PendingChange)], globalIDFields: [Int: String]) -> JSONValue {
        var order: [Int] = []
        var byLayer: [Int: (adds: [JSONValue], updates: [JSONValue], deletes: [JSONValue])] = [:]
        for (layerID, change) in changes {
            if byLayer[layerID] == nil { order.append(layerID); byLayer[layerID] = ([], [], []) }
            let field = globalIDFields[layerID] ?? "GlobalID"
            switch change.kind {
            case .add, .update:
                var attributes = change.attributes
                attributes[field] = .string(change.globalID)
                var feature: [String: JSONValue] = ["attributes": .object(attributes)]
                if let shape = change.geometry.flatMap(GeoJSON.geometry) { feature["geometry"] = EsriFeatures.json(shape.esriWound) }
                if change.kind == .add { byLayer[layerID]!.adds.append(.object(feature)) } else { byLayer[layerID]!.updates.append(.object(feature)) }
            case .delete:
                byLayer[layerID]!.deletes.append(.string(change.globalID))
            }
        }
        return .array(order.map { id in
            let edits = byLayer[id]!
            return .object(["id": .number(Double(id)), "adds": .array(edits.adds), "updates": .array(edits.updates), "deletes": .array(edits.deletes)])
        })
    }

    /// What the answer to `editsParameter` says of each change sent, by GlobalID. A change the
    /// answer does not mention waits; results for features not sent are ignored. An add refused
    /// (or a deletion refused) is looked for on the server before it is called refused: see `settle`.
    public static func outcomes(of answer: JSONValue, for changes: [(layerID: Int, change: PendingChange)]) -> [Outcome] {
        var results: [String: JSONValue] = [:]
        for layerResult in answer.array.prefix(10_000) {
            guard let id = layerResult["id"]?.int64 else { continue }
            for key in ["addResults", "updateResults", "deleteResults"] {
                for result in (layerResult[key]?.array ?? []).prefix(100_000) {
                    guard let globalID = result["globalId"]?.string else { continue }
                    results["\(id)|\(key)|\(globalID.uppercased())"] = result
                }
            }
        }
        return changes.map { layerID, change in
            let key = switch change.kind { case .add: "addResults"; case .update: "updateResults"; case .delete: "deleteResults" }
            guard let result = results["\(layerID)|\(key)|\(change.globalID.uppercased())"] else {
                return .waiting("The server's answer did not mention it.")
            }
            guard result["success"]?.bool == true else {
                let error = result["error"]
                let reason = error?["description"]?.string ?? error?["message"]?.string ?? "The server refused it and did not say why."
                return .refused(TerminalText.sanitizedLine(reason, maxLength: 500))
            }
            switch change.kind {
            case .add: return .added(objectID: result["objectId"]?.int64)
            case .update: return .updated
            case .delete: return .deleted
            }
        }
    }

    /// A refusal reconsidered once the service was asked which GlobalIDs it holds: an add it holds
    /// is there (its first sync's answer was lost); a deletion of a feature it does not hold is done.
    public static func settle(_ outcome: Outcome, of change: PendingChange, heldByServer: Bool) -> Outcome {
        guard case .refused = outcome else { return outcome }
        switch change.kind {
        case .add where heldByServer: return .alreadyThere
        case .delete where !heldByServer: return .alreadyThere
        default: return outcome
        }
    }
}
