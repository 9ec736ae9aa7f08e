import MapRender
import MapbookAssets
import MapbookCore

extension OverviewGeography {
    /// The outline of Maine, its counties and its neighbours that ship with mapbook: what the
    /// overview draws under the areas when no tiles are at hand. Missing assets draw nothing.
    public static func bundledMaine() -> OverviewGeography {
        func features(_ layer: MapbookAssets.Layer) -> [GeoFeature] { (try? MapbookAssets.features(layer)) ?? [] }
        return OverviewGeography(land: features(.state), subdivisions: features(.counties), neighbours: features(.region))
    }
}
