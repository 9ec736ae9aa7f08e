import Foundation
import Geodatabase
import Geometry
import MapSources

/// A file or folder opened without a portal (`mapbook open`, `snapshot --file`, `identify --file`):
/// a tile package or folder as the map, or a mobile geodatabase's layers over the world outline.
public enum SideLoadedMap {
    public static func open(path: String) throws -> (stack: MapStack, home: GeoExtent?, name: String) {
        guard Geodatabase.isSQLite(path: path) else {
            let source = try MapSources.open(path: path)
            return (MapStack(source), source.extent, source.name)
        }
        let opened = try GeodatabaseLayers.open(path: path)
        var stack = MapStack.worldOutline(problems: opened.problems)
        stack.features = opened.loaders
        return (stack, opened.extent, URL(fileURLWithPath: path).lastPathComponent)
    }
}
