import MapSources
import MapbookAssets
import Geometry

extension MapStack {
    /// The bundled world outline as a map, for a web map whose basemap cannot be drawn (another
    /// projection, a type mapbook does not draw, a host that does not answer): its layers are drawn
    /// over it. `problems` say why the basemap is not.
    public static func worldOutline(problems: [String] = []) -> MapStack {
        let countries = WorldOutline.countries
        return outline(countries, problems: problems + (countries.isEmpty ? ["The bundled world outline could not be read."] : []))
    }
}

/// The countries, read from the bundle once (on first use).
enum WorldOutline {
    static let countries: [GeoFeature] = (try? MapbookAssets.features(.countries)) ?? []
}
