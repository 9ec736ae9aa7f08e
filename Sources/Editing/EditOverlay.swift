import ArcGISModel
import Geometry
import MapbookCore

/// What an area shows with the user's edits laid over its own data, in the order saved — synced
/// ones too, since the area's files stay as downloaded: a feature added appears (its object id
/// `-N` for edit N, so it can be changed or deleted again), a change takes its new values and
/// shape, a deletion removes the feature. An add whose GlobalID the data already holds (an area
/// downloaded again after a sync) changes that feature instead of drawing it twice.
public enum EditOverlay {
    public static func apply(_ edits: [FeatureEdit], to features: [LayerFeature], info: FeatureLayerInfo) -> [LayerFeature] {
        guard !edits.isEmpty else { return features }
        var features = features
        let objectIDField = info.objectIDField
        let globalIDField = info.fields.first { $0.type == "esriFieldTypeGlobalID" }?.name
        // Each feature's GlobalID, its own or (added here) its edit's: a feature added here is found
        // by it, whatever number this device gave it.
        var globalIDs: [String?] = features.map { feature in globalIDField.flatMap { feature.attributes[$0]?.string } }
        func index(of edit: FeatureEdit) -> Int? {
            if let objectID = edit.objectID, objectID >= 0 {
                guard let objectIDField else { return nil }
                return features.firstIndex { $0.attributes[objectIDField]?.int64 == objectID }
            }
            return edit.globalID.isEmpty ? nil : globalIDs.firstIndex { $0?.caseInsensitiveCompare(edit.globalID) == .orderedSame }
        }
        for edit in edits where edit.status != .undone {
            let shape = edit.geometry.flatMap(GeoJSON.geometry)
            switch edit.kind {
            case .add:
                if let at = globalIDs.firstIndex(where: { $0?.caseInsensitiveCompare(edit.globalID) == .orderedSame }) {
                    features[at].attributes.merge(edit.attributes) { _, new in new }
                    if let shape { features[at].geometry = shape }
                    continue
                }
                var attributes = edit.attributes
                if let objectIDField { attributes[objectIDField] = .number(Double(-edit.sequence)) }
                if let globalIDField { attributes[globalIDField] = .string(edit.globalID) }
                features.append(LayerFeature(geometry: shape, attributes: attributes))
                globalIDs.append(edit.globalID)
            case .update:
                guard let at = index(of: edit) else { continue }
                features[at].attributes.merge(edit.attributes) { _, new in new }
                if let shape { features[at].geometry = shape; features[at].z = nil; features[at].m = nil }
            case .delete:
                if let at = index(of: edit) { features.remove(at: at); globalIDs.remove(at: at) }
            }
        }
        return features
    }
}
