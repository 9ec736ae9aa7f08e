import ArcGISModel
import Foundation
import Geometry
import MapbookCore

extension PlaceIndex {
    /// The most names taken from one layer: a layer of millions is searched by its first ones.
    public static let featureNameLimit = 100_000

    /// A layer's features by the value of its display field (a coded value by its name), for
    /// searching without the network: each placed at its point, a line's middle vertex or an area's
    /// middle, with the line's or area's extent to frame. Features without a value are left out.
    public static func names(ofFeatures features: [LayerFeature], info: FeatureLayerInfo, layer: String) -> [PlaceName] {
        guard let display = info.displayField, let field = info.field(display) else { return [] }
        let layer = TerminalText.sanitizedLine(layer, maxLength: 60)
        var names: [PlaceName] = []
        for feature in features where names.count < featureNameLimit {
            guard let geometry = feature.geometry, let point = anchor(geometry) else { continue }
            let value = feature.attributes[field.name] ?? feature.attributes.first { $0.key.caseInsensitiveCompare(field.name) == .orderedSame }?.value
            let name = PopupFormat.value(value, field: field, info: nil).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            let extent: GeoExtent? = if case .points = geometry { nil } else { geometry.extent }
            // Ranked with a package's most prominent labels: a named feature is what the map is about.
            names.append(PlaceName(name: TerminalText.sanitizedLine(name, maxLength: 120), point: point, rank: 0, source: .feature,
                                   layer: layer, extent: extent))
        }
        return names
    }

    /// Where a feature's name belongs.
    private static func anchor(_ geometry: GeoGeometry) -> GeoPoint? {
        switch geometry {
        case .points(let points): return points.first
        case .lines(let lines):
            guard let line = lines.max(by: { $0.count < $1.count }), !line.isEmpty else { return nil }
            return line[line.count / 2]
        case .polygons:
            guard let extent = geometry.extent else { return nil }
            return GeoPoint(longitude: (extent.xmin + extent.xmax) / 2, latitude: (extent.ymin + extent.ymax) / 2)
        }
    }
}
