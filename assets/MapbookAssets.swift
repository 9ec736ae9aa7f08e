import Foundation
import MapbookCore

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

    /// The layer's features, in a fixed order.
    public static func features(_ layer: Layer) throws -> [GeoFeature] {
        guard let url = Bundle.module.url(forResource: layer.rawValue, withExtension: "mbgf", subdirectory: layer.folder) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try CompactFeatures.decode(Data(contentsOf: url))
    }
}
