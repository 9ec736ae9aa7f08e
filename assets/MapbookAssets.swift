import Foundation
import MapbookCore
import Geometry
import Places

/// The geography that ships with mapbook (see ATTRIBUTION.md beside this file): Maine's outline and
/// counties, its neighbouring states and provinces, and its places; and the world's countries and
/// some of its cities.
public enum MapbookAssets {
    public enum Layer: String, CaseIterable, Sendable {
        case state, counties, region, places
        case countries, cities

        var folder: String { [.countries, .cities].contains(self) ? "world" : "maine" }
    }

    /// One line crediting every source, for attribution lines on screen and in packages.
    public static let attribution = "U.S. Census Bureau; Natural Earth; © GeoNames (CC BY 4.0)"

    /// The bundled named places, for searching and "what's here" offline: Maine's towns (ranked by
    /// population) and the world's cities.
    public static func placeNames() -> [PlaceName] {
        let towns = ((try? features(.places)) ?? []).compactMap { feature -> PlaceName? in
            guard case .points(let points) = feature.geometry, let point = points.first, let name = feature.property("name")?.string else { return nil }
            // Larger towns rank first: 10,000 people rank as a zoom-8 label, 100 as zoom 12.
            return PlaceName(name: name, point: point, rank: 16 - 2 * log10(max(feature.property("population")?.double ?? 1, 1)))
        }
        let cities = ((try? features(.cities)) ?? []).compactMap { feature -> PlaceName? in
            guard case .points(let points) = feature.geometry, let point = points.first, let name = feature.property("name")?.string else { return nil }
            return PlaceName(name: name, point: point, rank: 4)
        }
        return towns + cities
    }

    /// The layer's features, in a fixed order.
    public static func features(_ layer: Layer) throws -> [GeoFeature] {
        guard let url = Bundle.module.url(forResource: layer.rawValue, withExtension: "mbgf", subdirectory: layer.folder) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try CompactFeatures.decode(Data(contentsOf: url))
    }
}
