import MapRender
import MapbookAssets
import MapbookCore
import Geometry

extension OverviewGeography {
    /// The outline of Maine, its counties and its neighbours, and the world's countries and cities, that ship
    /// with mapbook: what the overview draws under the areas when no tiles are at hand (Maine for a
    /// web map there, the world for one elsewhere). Missing assets draw nothing.
    public static func bundled() -> OverviewGeography {
        func features(_ layer: MapbookAssets.Layer) -> [GeoFeature] { (try? MapbookAssets.features(layer)) ?? [] }
        return OverviewGeography(land: features(.state), subdivisions: features(.counties), neighbours: features(.region),
                                 world: features(.countries), cities: features(.cities))
    }
}
