import Foundation
import Geometry
import MapbookCore
import Synchronization

/// The FeatureServer's features as they stand after edits: what `query` reads and `applyEdits`
/// changes. Features are found by object id or, with `useGlobalIds`, by GlobalID; an add whose
/// GlobalID the layer already holds is refused, so an edit sent twice lands once.
final class SampleFeatureStore: Sendable {
    struct Feature: Sendable {
        var attributes: [String: JSONValue]
        var geometry: JSONValue
        var extent: GeoExtent
        /// The server generations it was added and last changed at (0: as first served).
        var created: Int64 = 0
        var changed: Int64 = 0
    }

    /// The generation areas' replicas start below: every change after the start is newer than any.
    static let firstGeneration: Int64 = 1_000_000

    /// One layer's part of an `edits` parameter.
    struct LayerEdits {
        var layer: Int
        var adds: [JSONValue]
        var updates: [JSONValue]
        var deletes: [JSONValue]
    }

    private struct State {
        var layers: [[Feature]]
        var nextObjectID: [Int64]
        /// Each layer's GlobalIDs, upper-cased: a duplicate add is refused without a scan.
        var globalIDs: [Set<String>]
        /// Files attached to features, by "layer/objectId".
        var attachments: [String: [Attachment]] = [:]
        var nextAttachmentID: Int64 = 1
        /// Raised by every change; a replica asks for the changes after the one it holds.
        var generation = SampleFeatureStore.firstGeneration
        /// Features deleted: layer, GlobalID, the generations they were added and deleted at.
        var deleted: [(layer: Int, globalID: String, created: Int64, at: Int64)] = []
    }

    /// `synchronizeReplica`'s download: per layer of `layers`, the features added, changed and
    /// deleted after `generation` (one added and changed since is an add), and the generation now.
    func changes(since generation: Int64, layers: [Int]) -> (edits: JSONValue, generation: Int64) {
        state.withLock { state in
            let edits = layers.filter { state.layers.indices.contains($0) }.map { layer -> JSONValue in
                let fresh = state.layers[layer].filter { $0.changed > generation }
                func feature(_ stored: Feature) -> JSONValue {
                    var geometry = stored.geometry
                    if case .object(var members) = geometry { members["spatialReference"] = .object(["wkid": .number(4326)]); geometry = .object(members) }
                    return .object(["attributes": .object(stored.attributes), "geometry": geometry])
                }
                let deletes = state.deleted.filter { $0.layer == layer && $0.at > generation && $0.created <= generation }.map { JSONValue.string($0.globalID) }
                return .object(["id": .number(Double(layer)), "features": .object([
                    "adds": .array(fresh.filter { $0.created > generation }.map(feature)),
                    "updates": .array(fresh.filter { $0.created <= generation }.map(feature)),
                    "deleteIds": .array(deletes),
                ])])
            }
            return (.array(edits), state.generation)
        }
    }

    struct Attachment: Sendable {
        var id: Int64
        var name: String
        var contentType: String
        var data: Data
    }

    /// `addAttachment`: the file kept for the feature, or the ArcGIS error of a feature not there.
    func addAttachment(layer: Int, objectID: Int64, name: String, contentType: String, data: Data) -> JSONValue {
        state.withLock { state in
            guard state.layers[layer].contains(where: { $0.attributes["OBJECTID"]?.int64 == objectID }) else {
                return .object(["addAttachmentResult": .object(["objectId": .null, "success": .bool(false),
                                                                "error": .object(["code": .number(1019), "description": .string("Unable to find feature.")])])])
            }
            let id = state.nextAttachmentID
            state.nextAttachmentID += 1
            state.attachments["\(layer)/\(objectID)", default: []].append(Attachment(id: id, name: name, contentType: contentType, data: data))
            return .object(["addAttachmentResult": .object(["objectId": .number(Double(id)), "globalId": .null, "success": .bool(true)])])
        }
    }

    func attachments(layer: Int, objectID: Int64) -> [Attachment] { state.withLock { $0.attachments["\(layer)/\(objectID)"] ?? [] } }
    private let state: Mutex<State>

    init(_ seed: [[Feature]]) {
        let next = seed.map { features in (features.compactMap { $0.attributes["OBJECTID"]?.int64 }.max() ?? 0) + 1 }
        let ids = seed.map { Set($0.compactMap { $0.attributes["GlobalID"]?.string?.uppercased() }) }
        state = Mutex(State(layers: seed, nextObjectID: next, globalIDs: ids))
    }

    func features(of layer: Int) -> [Feature] { state.withLock { $0.layers[layer] } }

    /// A layer's GlobalID for a seed feature: fixed, so every start serves the same ones.
    static func seedGlobalID(layer: Int, objectID: Int) -> String {
        String(format: "{5A3E0000-0000-4000-8000-%04X%08X}", layer, objectID)
    }

    /// The edits applied as one request: per layer, results in ArcGIS's shape
    /// (`addResults`/`updateResults`/`deleteResults`, each `{objectId, globalId, success[, error]}`).
    /// With `rollbackOnFailure`, one failure leaves every layer as it was and every result failed.
    func apply(_ edits: [LayerEdits], useGlobalIds: Bool, rollbackOnFailure: Bool) -> JSONValue {
        state.withLock { state in
            let before = state
            var results: [JSONValue] = []
            var failed = false
            for layerEdits in edits {
                var adds: [JSONValue] = [], updates: [JSONValue] = [], deletes: [JSONValue] = []
                for add in layerEdits.adds {
                    let outcome = Self.add(add, to: layerEdits.layer, useGlobalIds: useGlobalIds, state: &state)
                    failed = failed || outcome["success"]?.bool != true
                    adds.append(outcome)
                }
                for update in layerEdits.updates {
                    let outcome = Self.update(update, in: layerEdits.layer, useGlobalIds: useGlobalIds, state: &state)
                    failed = failed || outcome["success"]?.bool != true
                    updates.append(outcome)
                }
                for delete in layerEdits.deletes {
                    let outcome = Self.delete(delete, from: layerEdits.layer, useGlobalIds: useGlobalIds, state: &state)
                    failed = failed || outcome["success"]?.bool != true
                    deletes.append(outcome)
                }
                results.append(.object(["id": .number(Double(layerEdits.layer)), "addResults": .array(adds),
                                        "updateResults": .array(updates), "deleteResults": .array(deletes)]))
            }
            guard failed, rollbackOnFailure else { return .array(results) }
            state = before
            return .array(results.map { Self.rolledBack($0) })
        }
    }

    /// A change "by someone else": a place of layer 0 (by object id, else the first) renamed and a
    /// new one added beside it, as an office colleague editing the service while the field worker
    /// is offline.
    func changeBySomeoneElse(objectID: Int64?, stamp: Int) {
        state.withLock { state in
            let at = objectID.flatMap { id in state.layers[0].firstIndex { $0.attributes["OBJECTID"]?.int64 == id } } ?? 0
            guard state.layers[0].indices.contains(at) else { return }
            var first = state.layers[0][at]
            first.attributes["name"] = .string("Renamed at the office \(stamp)")
            state.generation += 1
            first.changed = state.generation
            state.layers[0][at] = first
            let objectID = state.nextObjectID[0]
            state.nextObjectID[0] += 1
            var attributes = first.attributes
            attributes["OBJECTID"] = .number(Double(objectID))
            let globalID = FeatureEditID.make()
            attributes["GlobalID"] = .string(globalID)
            state.globalIDs[0].insert(globalID.uppercased())
            attributes["name"] = .string("Added at the office \(stamp)")
            state.generation += 1
            state.layers[0].append(Feature(attributes: attributes, geometry: first.geometry, extent: first.extent, created: state.generation, changed: state.generation))
        }
    }

    // MARK: One edit

    private static func success(_ objectID: Int64?, _ globalID: String?) -> JSONValue {
        .object(["objectId": objectID.map { .number(Double($0)) } ?? .null, "globalId": globalID.map(JSONValue.string) ?? .null, "success": .bool(true)])
    }

    private static func failure(_ objectID: Int64?, _ globalID: String?, code: Int, _ description: String) -> JSONValue {
        .object(["objectId": objectID.map { .number(Double($0)) } ?? .null, "globalId": globalID.map(JSONValue.string) ?? .null, "success": .bool(false),
                 "error": .object(["code": .number(Double(code)), "description": .string(description)])])
    }

    private static func rolledBack(_ layerResult: JSONValue) -> JSONValue {
        guard case .object(var members) = layerResult else { return layerResult }
        for key in ["addResults", "updateResults", "deleteResults"] {
            members[key] = .array((members[key]?.array ?? []).map { result in
                guard result["success"]?.bool == true else { return result }
                return failure(result["objectId"]?.int64, result["globalId"]?.string, code: 1003, "Operation rolled back.")
            })
        }
        return .object(members)
    }

    private static func index(in layer: [Feature], objectID: Int64?, globalID: String?, useGlobalIds: Bool) -> Int? {
        if useGlobalIds {
            guard let globalID else { return nil }
            return layer.firstIndex { $0.attributes["GlobalID"]?.string?.caseInsensitiveCompare(globalID) == .orderedSame }
        }
        guard let objectID else { return nil }
        return layer.firstIndex { $0.attributes["OBJECTID"]?.int64 == objectID }
    }

    private static func add(_ feature: JSONValue, to layer: Int, useGlobalIds: Bool, state: inout State) -> JSONValue {
        var attributes = feature["attributes"]?.object ?? [:]
        let globalID = useGlobalIds ? attributes["GlobalID"]?.string : FeatureEditID.make()
        guard let globalID, FeatureEditID.isWellFormed(globalID) else {
            return failure(nil, nil, code: 1000, "A GlobalID is required when useGlobalIds is true.")
        }
        if state.globalIDs[layer].contains(globalID.uppercased()) {
            return failure(nil, globalID, code: 1000, "A feature with GlobalID \(globalID) already exists.")
        }
        guard let geometry = feature["geometry"], let extent = extent(of: geometry) else {
            return failure(nil, globalID, code: 1000, "The feature has no geometry the layer can hold.")
        }
        let objectID = state.nextObjectID[layer]
        state.nextObjectID[layer] += 1
        attributes["OBJECTID"] = .number(Double(objectID))
        attributes["GlobalID"] = .string(globalID)
        state.generation += 1
        state.layers[layer].append(Feature(attributes: attributes, geometry: geometry, extent: extent, created: state.generation, changed: state.generation))
        state.globalIDs[layer].insert(globalID.uppercased())
        return success(objectID, globalID)
    }

    private static func update(_ feature: JSONValue, in layer: Int, useGlobalIds: Bool, state: inout State) -> JSONValue {
        let attributes = feature["attributes"]?.object ?? [:]
        let objectID = attributes["OBJECTID"]?.int64, globalID = attributes["GlobalID"]?.string
        guard let at = index(in: state.layers[layer], objectID: objectID, globalID: globalID, useGlobalIds: useGlobalIds) else {
            return failure(objectID, globalID, code: 1019, "Unable to find feature.")
        }
        var stored = state.layers[layer][at]
        for (name, value) in attributes where name != "OBJECTID" && name != "GlobalID" { stored.attributes[name] = value }
        if let geometry = feature["geometry"], geometry != .null {
            guard let extent = extent(of: geometry) else { return failure(objectID, globalID, code: 1000, "The geometry is not valid.") }
            stored.geometry = geometry
            stored.extent = extent
        }
        state.generation += 1
        stored.changed = state.generation
        state.layers[layer][at] = stored
        return success(stored.attributes["OBJECTID"]?.int64, stored.attributes["GlobalID"]?.string)
    }

    private static func delete(_ id: JSONValue, from layer: Int, useGlobalIds: Bool, state: inout State) -> JSONValue {
        let globalID = id.string, objectID = id.int64
        guard let at = index(in: state.layers[layer], objectID: objectID, globalID: globalID, useGlobalIds: useGlobalIds) else {
            return failure(objectID, globalID, code: 1019, "Unable to find feature.")
        }
        let removed = state.layers[layer].remove(at: at)
        state.generation += 1
        if let id = removed.attributes["GlobalID"]?.string { state.deleted.append((layer, id, removed.created, state.generation)) }
        if let id = removed.attributes["GlobalID"]?.string { state.globalIDs[layer].remove(id.uppercased()) }
        return success(removed.attributes["OBJECTID"]?.int64, removed.attributes["GlobalID"]?.string)
    }

    /// The extent of an ArcGIS JSON geometry in degrees: a point, a multipoint, paths or rings.
    static func extent(of geometry: JSONValue) -> GeoExtent? {
        var xs: [Double] = [], ys: [Double] = []
        func take(_ pair: JSONValue) {
            let xy = pair.array
            guard xy.count >= 2, let x = xy[0].double, let y = xy[1].double, x.isFinite, y.isFinite else { return }
            xs.append(x); ys.append(y)
        }
        if let x = geometry["x"]?.double, let y = geometry["y"]?.double, x.isFinite, y.isFinite { xs.append(x); ys.append(y) }
        for key in ["points"] { (geometry[key]?.array ?? []).forEach(take) }
        for key in ["paths", "rings"] { (geometry[key]?.array ?? []).forEach { ($0.array).forEach(take) } }
        guard let xmin = xs.min(), let xmax = xs.max(), let ymin = ys.min(), let ymax = ys.max() else { return nil }
        return GeoExtent(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }
}

/// GlobalIDs as the sample service makes and checks them: a UUID in braces.
enum FeatureEditID {
    static func make() -> String { "{\(UUID().uuidString)}" }

    static func isWellFormed(_ text: String) -> Bool {
        text.count == 38 && text.first == "{" && text.last == "}" && UUID(uuidString: String(text.dropFirst().dropLast())) != nil
    }
}
