import ArcGISModel
import Geometry
import MapbookCore

/// What an area shows with the user's edits not yet synced laid over its own data, in the order
/// saved: a feature added appears (its object id `-N` for edit N, so it can be changed or deleted
/// again before a sync), a change takes its new values and shape, a deletion removes the feature.
public enum EditOverlay {
    public static func apply(_ edits: [FeatureEdit], to features: [LayerFeature], info: FeatureLayerInfo) -> [LayerFeature] {
        guard !edits.isEmpty else { return features }
        var features = features
        let objectIDField = info.objectIDField
        let globalIDField = info.fields.first { $0.type == "esriFieldTypeGlobalID" }?.name
        func index(of objectID: Int64?) -> Int? {
            guard let objectID, let objectIDField else { return nil }
            return features.firstIndex { $0.attributes[objectIDField]?.int64 == objectID }
        }
        for edit in edits where edit.isUnsynced {
            let shape = edit.geometry.flatMap(GeoJSON.geometry)
            switch edit.kind {
            case .add:
                var attributes = edit.attributes
                if let objectIDField { attributes[objectIDField] = .number(Double(-edit.sequence)) }
                if let globalIDField { attributes[globalIDField] = .string(edit.globalID) }
                features.append(LayerFeature(geometry: shape, attributes: attributes))
            case .update:
                guard let at = index(of: edit.objectID) else { continue }
                features[at].attributes.merge(edit.attributes) { _, new in new }
                if let shape { features[at].geometry = shape; features[at].z = nil; features[at].m = nil }
            case .delete:
                if let at = index(of: edit.objectID) { features.remove(at: at) }
            }
        }
        return features
    }
}
