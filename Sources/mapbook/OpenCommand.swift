import AppModel
import AppRuntime
import ArgumentParser
import Foundation
import MapRender
import MapSources
import MobilePackages
import MapbookCore
import OfflineLibrary
import TerminalUI
import ArcGISModel
import Geometry
import EventLoop
import UserFiles
import MapbookServices

/// `mapbook open FILE`: a side-loaded package (or tile folder) in the full-screen map view.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a mobile map package (.mmpk), a .vtpk, .tpkx or .tpk file, a mobile geodatabase (.geodatabase) or a folder of tiles in the full-screen map view.",
        discussion: """
            No portal and no network are involved. A mobile map package (zipped, or unpacked into a folder) opens on its first \
            map, or the one --map names, with its bookmarks (b) and layers (L). Keys are listed on the ? help screen; Esc or q quits.
            """)

    @Argument(help: ArgumentHelp("The package or folder, or the title or file name of a mobile map package on this device (`mapbook packages`).",
                                 valueName: "FILE")) var file: String
    @OptionGroup var dataDirectory: DataDirectoryOption
    @Option(help: ArgumentHelp("A mobile map package's map, by name or number (1 is the first).", valueName: "NAME")) var map: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Open at this centre (with --zoom) instead of the package's extent.", valueName: "LON,LAT"))
    var center: String?
    @Option(help: ArgumentHelp("Open at this zoom (0–22, as ArcGIS levels of detail), with --center.", valueName: "Z")) var zoom: Double?
    @OptionGroup var display: DisplayOptions

    func validate() throws {
        guard (center == nil) == (zoom == nil) else { throw ValidationError("Give --center and --zoom together.") }
        if let center, GeoPoint(parsing: center) == nil { throw ValidationError(GeoPoint.notAPoint(center, what: "--center")) }
        if let zoom, !MapViewport.zoomRange.contains(zoom) { throw ValidationError("--zoom must be between 0 and 22.") }
    }

    func run() async throws {
        let opened: SideLoadedMap
        do {
            // Not a path here: a package on this device, by title or file name.
            let path = FileManager.default.fileExists(atPath: file) ? file : try DevicePackages(libraryRoot: dataDirectory.root).find(file).path
            opened = try SideLoadedMap.open(path: path, map: map)
        } catch {
            throw Output.fail(error, json: false)
        }
        let settings = Settings.load().0
        let pixels = PixelDrawing()
        let view = center.flatMap(GeoPoint.init(parsing:)).flatMap { point in zoom.map { MapViewport(center: MercatorPoint(point), zoom: $0) } }
        try await Browser.present(await Self.program(opened, settings: settings, pixels: pixels, view: view), display: display, settings: settings,
                                  pixels: pixels)
    }

    /// The map view on a side-loaded map, with no portal: a standalone map never loads a web map.
    /// Also what the browser becomes when a package is opened from the Maps card.
    @UIActor static func program(_ opened: SideLoadedMap, settings: Settings, pixels: PixelDrawing? = nil, view: MapViewport? = nil) -> Program {
        let runtime = Runtime(library: OfflineLibrary(root: LibraryLocation.root(dataDir: nil), portalKey: "none", webMap: ItemID.exploreMaine),
                              map: opened.stack, pixels: pixels, connect: { throw MapSourceError("No portal is used by mapbook open.") })
        var state = AppState.standaloneMap(title: opened.title, sourceName: opened.name, home: opened.home, bookmarks: opened.bookmarks)
        if case .map(var map) = state.screen {
            if let mode = MapMode(rawValue: settings.graphics.rawValue) { map.mode = mode }
            if let view {
                map.viewport = view
                map.fitsHomeWhenOpened = false
            }
            state.screen = .map(map)
        }
        if let problem = state.preferences.takeLocation(from: settings, environment: ProcessInfo.processInfo.environment) {
            state.notice = .problem(problem)
        }
        return Program(state: state, runtime: runtime)
    }
}
