import Foundation
import MapbookCore
import Geometry
import Places

/// The geography that ships with mapbook (see ATTRIBUTION.md beside this file): Maine's outline and
/// counties, its neighbouring states and provinces, and its places; the world's countries and
/// some of its cities (drawn); and the world gazetteer (searched).
public enum MapbookAssets {
    public enum Layer: String, CaseIterable, Sendable {
        case state, counties, region, places
        case countries, cities
        /// The interstate highways of the contiguous United States, cut at their junctions: the
        /// sample portal's road network.
        case highways

        var folder: String {
            switch self {
            case .countries, .cities: "world"
            case .highways: "usa"
            default: "maine"
            }
        }
    }

    /// One line crediting every source, for attribution lines on screen and in packages.
    public static let attribution = "U.S. Census Bureau; Natural Earth; © GeoNames (CC BY 4.0)"

    /// The bundled named places, for searching and "what's here" offline: Maine's towns of 1,000
    /// people or more, and the world gazetteer's places of 15,000 or more (read once, on first use).
    public static func placeNames() -> [PlaceName] { bundledPlaceNames }

    private static let bundledPlaceNames: [PlaceName] = {
        let maine = "Maine, United States"
        let towns = ((try? features(.places)) ?? []).compactMap { feature -> PlaceName? in
            guard case .points(let points) = feature.geometry, let point = points.first, let name = feature.property("name")?.string else { return nil }
            let population = Int(feature.property("population")?.double ?? 1)
            return PlaceName(name: name, point: point, rank: PlaceName.rank(population: population), region: maine, source: .gazetteer)
        }
        let world = directory.map { $0.appendingPathComponent("world/gazetteer.mbpl") }
            .flatMap { try? Data(contentsOf: $0) }.flatMap { try? WorldGazetteer.decode($0) } ?? []
        // The world's places of Maine are the towns' own already.
        return towns + world.filter { $0.region != maine }
    }()

    /// The layer's features, in a fixed order.
    public static func features(_ layer: Layer) throws -> [GeoFeature] {
        guard let folder = directory else { throw CocoaError(.fileNoSuchFile) }
        return try CompactFeatures.decode(Data(contentsOf: folder.appendingPathComponent("\(layer.folder)/\(layer.rawValue).mbgf")))
    }

    /// Where the bundled files are: beside the executable, as `swift build` leaves them
    /// (`mapbook_MapbookAssets.resources`), else in `../share/mapbook` from it, as `scripts/install`
    /// puts them. Looked up from the executable's real path, so a link to it works too; when
    /// neither is there the geography reads as missing (never the crash of a missing bundle).
    public static let directory: URL? = {
        // /proc/self/exe, not Bundle.main: the bundle lists the executable's folder when first asked,
        // a few milliseconds of every start where that folder is full (a build's).
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let executable = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        let beside = executable.deletingLastPathComponent()
        let candidates = [beside.appendingPathComponent("mapbook_MapbookAssets.resources"),
                          beside.deletingLastPathComponent().appendingPathComponent("share/mapbook")]
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("world/gazetteer.mbpl").path) }
    }()
}
