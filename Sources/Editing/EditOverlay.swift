import ArcGISModel
import Geometry
import MapbookCore

/// What an area shows with the user's edits laid over its own data, in the order saved — synced
/// ones too, since the area's files stay as downloaded: a feature added appears (its object id
/// `-N` for edit N, so it can be changed or deleted again), a change takes its new values and
/// shape, a deletion removes the feature. An add whose GlobalID the data already holds (an area
/// downloaded again after a sync) changes that feature instead of drawing it twice. Features are
/// found through indexes by object id and GlobalID, so ten thousand edits over a hundred thousand
/// features take one pass over each.
public enum EditOverlay {
    public static func apply(_ edits: [FeatureEdit], to stored: [LayerFeature], info: FeatureLayerInfo) -> [LayerFeature] {
        guard !edits.isEmpty else { return stored }
        var features = stored
        var removed = Set<Int>()
        let objectIDField = info.objectIDField
        let globalIDField = info.fields.first { $0.type == "esriFieldTypeGlobalID" }?.name
        // The features of the data the edits name, found in one pass: only those are indexed. An
        // add not yet synced cannot be in the data (only the server could have put it there), so
        // only synced adds are looked for, and changes that name no object id of the data.
        let namedObjectIDs = Set(edits.compactMap { edit in edit.objectID.flatMap { $0 >= 0 ? $0 : nil } })
        let namedGlobalIDs = Set(edits.compactMap { edit -> String? in
            guard !edit.globalID.isEmpty, edit.kind == .add ? edit.status == .synced : (edit.objectID ?? -1) < 0 else { return nil }
            return Self.key(edit.globalID)
        })
        var byObjectID: [Int64: Int] = [:], byGlobalID: [String: Int] = [:]
        for (index, feature) in features.enumerated() {
            if !namedObjectIDs.isEmpty, let field = objectIDField, let id = feature.attributes[field]?.int64, namedObjectIDs.contains(id),
               byObjectID[id] == nil { byObjectID[id] = index }
            if !namedGlobalIDs.isEmpty, let field = globalIDField, case .string(let raw)? = feature.attributes[field] {
                let id = Self.key(raw)
                if namedGlobalIDs.contains(id), byGlobalID[id] == nil { byGlobalID[id] = index }
            }
        }
        /// The feature an edit changes: by its object id in the area's data, else (added here) by GlobalID.
        func index(of edit: FeatureEdit) -> Int? {
            let found: Int? = if let objectID = edit.objectID, objectID >= 0 { byObjectID[objectID] }
                else if !edit.globalID.isEmpty { byGlobalID[Self.key(edit.globalID)] } else { nil }
            return found.flatMap { removed.contains($0) ? nil : $0 }
        }
        for edit in edits where edit.status != .undone {
            let shape = edit.geometry.flatMap(GeoJSON.geometry)
            switch edit.kind {
            case .add:
                if let at = byGlobalID[Self.key(edit.globalID)], !removed.contains(at) {
                    features[at].attributes.merge(edit.attributes) { _, new in new }
                    if let shape { features[at].geometry = shape }
                    continue
                }
                var attributes = edit.attributes
                if let objectIDField { attributes[objectIDField] = .number(Double(-edit.sequence)) }
                if let globalIDField { attributes[globalIDField] = .string(edit.globalID) }
                features.append(LayerFeature(geometry: shape, attributes: attributes))
                if !edit.globalID.isEmpty { byGlobalID[Self.key(edit.globalID)] = features.count - 1 }
            case .update:
                guard let at = index(of: edit) else { continue }
                features[at].attributes.merge(edit.attributes) { _, new in new }
                if let shape { features[at].geometry = shape; features[at].z = nil; features[at].m = nil }
            case .delete:
                if let at = index(of: edit) { removed.insert(at) }
            }
        }
        return removed.isEmpty ? features : features.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    }

    /// A GlobalID as compared: upper case (ArcGIS writes them so; only another writer's are changed).
    private static func key(_ globalID: String) -> String {
        globalID.utf8.contains { $0 >= 0x61 && $0 <= 0x7A } ? globalID.uppercased() : globalID
    }
}
