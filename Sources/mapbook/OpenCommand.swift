import AppModel
import AppRuntime
import ArgumentParser
import Foundation
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import TerminalUI
import ArcGISModel
import Geometry
import UserFiles

/// `mapbook open FILE`: a side-loaded package (or tile folder) in the full-screen map view.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a .vtpk, .tpkx or .tpk file, a mobile geodatabase (.geodatabase) or a folder of tiles in the full-screen map view.",
        discussion: "No portal and no network are involved. Keys are listed on the ? help screen; Esc or q quits.")

    @Argument(help: ArgumentHelp("The package or folder.", valueName: "FILE")) var file: String
    @OptionGroup var display: DisplayOptions

    func run() async throws {
        let opened: (stack: MapStack, home: GeoExtent?, name: String)
        do {
            opened = try SideLoadedMap.open(path: file)
        } catch {
            throw Output.fail(error, json: false)
        }
        // No portal: a standalone map never loads a web map.
        let runtime = await Runtime(library: OfflineLibrary(root: LibraryLocation.root(dataDir: nil), portalKey: "none",
                                                            webMap: ItemID.exploreMaine),
                                    map: opened.stack, connect: { throw MapSourceError("No portal is used by mapbook open.") })
        let settings = Settings.load().0
        var state = AppState.standaloneMap(title: URL(fileURLWithPath: file).lastPathComponent, sourceName: opened.name, home: opened.home)
        if case .map(var map) = state.screen, let mode = MapMode(rawValue: settings.graphics.rawValue) {
            map.mode = mode
            state.screen = .map(map)
        }
        let program = await Program(state: state, runtime: runtime)
        try await Browser.present(program, display: display, settings: settings)
    }
}
