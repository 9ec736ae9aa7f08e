import Geometry

/// What one edit asks of a layer, as the browser's form and keys make it and the editor that keeps
/// it takes it: a point or a shape added, a feature's values changed, a point moved, a feature
/// deleted.
public enum FeatureEditAction: Equatable, Sendable {
    case add(GeoPoint)
    /// A line or an area through these points: the layer it goes to says which.
    case addShape([GeoPoint])
    case update(objectID: Int64)
    case move(objectID: Int64, to: GeoPoint)
    case delete(objectID: Int64)

    /// The feature it changes, for all but an add.
    public var objectID: Int64? {
        switch self {
        case .add, .addShape: nil
        case .update(let objectID), .move(let objectID, _), .delete(let objectID): objectID
        }
    }
}
