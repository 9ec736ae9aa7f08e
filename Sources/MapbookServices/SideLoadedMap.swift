import ArcGISModel
import Foundation
import Geodatabase
import Geometry
import MapSources
import MapbookCore
import MobilePackages

/// A file or folder opened without a portal (`mapbook open`, `snapshot --file`, `identify --file`):
/// a tile package or folder as the map, a mobile geodatabase's layers over the world outline, or a
/// map of a mobile map package.
public struct SideLoadedMap: Sendable {
    public var stack: MapStack
    /// Where the map opens.
    public var home: GeoExtent?
    /// What the map is called: the file's name, or the package's map's.
    public var name: String
    /// What the screen's title says: the file's name, or the package's title.
    public var title: String
    public var bookmarks: [Bookmark] = []

    /// `map` chooses a package's map by name (any case) or number (1 is the first); the first
    /// without it.
    public static func open(path: String, map: String? = nil) throws -> SideLoadedMap {
        let fileName = TerminalText.sanitizedLine(URL(fileURLWithPath: path).lastPathComponent, maxLength: 120)
        if MobileMapPackage.recognizes(path: path) { return try openPackage(path: path, map: map) }
        guard map == nil else { throw MapSourceError("\(fileName) is not a mobile map package, so it has no maps to choose from.") }
        guard Geodatabase.isSQLite(path: path) else {
            let source = try MapSources.open(path: path)
            return SideLoadedMap(stack: MapStack(source), home: source.extent, name: source.name, title: fileName)
        }
        let opened = try GeodatabaseLayers.open(path: path)
        var stack = MapStack.worldOutline(problems: opened.problems)
        stack.features = opened.loaders
        stack.notDrawn = opened.notDrawn
        return SideLoadedMap(stack: stack, home: opened.extent, name: fileName, title: fileName)
    }

    private static func openPackage(path: String, map wanted: String?) throws -> SideLoadedMap {
        let package = try MobileMapPackage(path: path)
        let chosen = try package.map(named: wanted)
        let opened = MobileMapLayers.open(chosen, in: package)
        let problems = package.problems + opened.problems
        var stack: MapStack
        if var drawn = opened.stack {
            drawn.problems = problems
            stack = drawn
        } else {
            let why = chosen.webMap.basemapLayers.isEmpty ? [] : ["This map's basemap holds no tile package mapbook draws, so its layers are drawn over the world outline."]
            stack = MapStack.worldOutline(problems: why + problems)
            stack.baseFeatures += opened.baseFeatures
            stack.features = opened.features
            stack.notDrawn = opened.notDrawn
        }
        return SideLoadedMap(stack: stack, home: opened.home, name: TerminalText.sanitizedLine(chosen.name, maxLength: 80),
                             title: TerminalText.sanitizedLine(package.info.title, maxLength: 80), bookmarks: opened.bookmarks)
    }
}
