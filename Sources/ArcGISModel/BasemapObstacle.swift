import Geometry
import MapbookCore

/// Why mapbook cannot draw a web map's basemap (its layers are then drawn over the world outline):
/// one rule for the browser and `snapshot`.
public enum BasemapObstacle: Sendable, Equatable {
    /// The web map is in a coordinate system PROJ cannot use (its basemap's tiles could not be placed).
    case projection(SpatialReference)
    /// None of its layers is of a kind mapbook draws (the first such layer), or it has none.
    case notDrawable(WebMapLayer?)

    /// What stands in the way of `chosen` (a basemap picked by the user, always Web Mercator), else
    /// of the web map's own; nil when it can be drawn.
    public static func of(_ webMap: WebMap?, chosen: Basemap? = nil) -> BasemapObstacle? {
        if let chosen { return chosen.drawableLayers.isEmpty ? .notDrawable(chosen.undrawableLayers.first) : nil }
        guard let webMap else { return .notDrawable(nil) }
        // A basemap in another system is drawn by its tiles' own scheme (resampled into Web
        // Mercator); only a system PROJ cannot use stands in the way.
        if let reference = webMap.spatialReference, !reference.isWebMercator, reference.problem != nil { return .projection(reference) }
        guard webMap.basemap.drawableLayers.isEmpty else { return nil }
        return .notDrawable(webMap.basemap.undrawableLayers.first ?? webMap.basemapLayers.first)
    }

    /// The sentence that says so, without its end: callers add how to choose another basemap.
    public var sentence: String {
        switch self {
        case .notDrawable(let layer?):
            // The layer's title and type come from the web map: cleaned for the terminal.
            "This web map's basemap\(layer.title.map { ", “\(TerminalText.sanitizedLine($0, maxLength: 80))”" } ?? "") "
                + "(\(TerminalText.sanitizedLine(layer.layerType, maxLength: 40))), is of a kind mapbook does not draw: "
                + "its layers are drawn over the world outline"
        case .notDrawable(nil): "This web map has no basemap: its layers are drawn over the world outline"
        case .projection(let reference):
            // Its layers are over the world outline, as the map's title bar says.
            (reference.problem ?? CoordinateSystemError(reference.summary)).clause(about: "This web map") + "; "
                + "its layers are drawn over the world outline"
        }
    }
}
