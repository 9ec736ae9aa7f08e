import AppModel
import AppRuntime
import ArgumentParser
import Foundation
import HTTP
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import TerminalCanvas
import TileFormats
import UserFiles
import ArcGISModel
import Geometry
import MapbookServices
import PixelRender

/// Where a map command's tiles come from: a downloaded area, a file, or (with neither) the web
/// map's basemap online — the one chosen with `mapbook basemaps --use`, else its own.
struct MapSourceOptions: ParsableArguments {
    @OptionGroup var library: LibraryOptions
    @Option(help: ArgumentHelp("A downloaded map area (item id or title).", valueName: "AREA")) var area: String?
    @Option(help: ArgumentHelp("A mobile map package (.mmpk), a .vtpk, .tpkx or .tpk file, a mobile geodatabase (.geodatabase), or a folder of tiles.",
                               valueName: "FILE")) var file: String?
    @Option(help: ArgumentHelp("With --file, a mobile map package's map, by name or number (1 is the first).", valueName: "NAME")) var map: String?

    func validate() throws {
        guard area == nil || file == nil else { throw ValidationError("Give at most one of --area and --file.") }
        guard map == nil || file != nil else { throw ValidationError("--map chooses a map of a mobile map package given with --file.") }
    }

    /// The layers to draw (an area's and the web map's with their operational layers: the area's
    /// copies, or the services online) and the extent to show first.
    func openStack() async throws -> (stack: MapStack, home: GeoExtent?) {
        let library = self.library.library
        if let file {
            let opened = try SideLoadedMap.open(path: file, map: map)
            return (opened.stack, opened.home)
        }
        guard area == nil else {
            let (source, areaID, layers) = try openArea()
            var stack = MapStack(source)
            await OperationalLayerLoaders.open(OperationalLayers(area: areaID, layers: layers, online: false), library: library, client: nil)
                .add(to: &stack)
            return (stack, source.extent)
        }
        let client = self.library.selection.client()
        let webMap = try await client.webMap(library.webMapID)
        // As in the browser: a basemap mapbook cannot draw, or whose host does not answer, leaves the
        // web map's layers drawn over the world outline, and says why.
        let chosen = library.chosenBasemap()
        var stack: MapStack
        if let obstacle = BasemapObstacle.of(webMap, chosen: chosen) {
            stack = MapStack.worldOutline(problems: [obstacle.sentence + "; `mapbook basemaps --use` chooses another."])
        } else {
            do {
                stack = try await OperationalLayerLoaders.basemap(chosen ?? webMap.basemap, client: client, http: HTTPClient(),
                                                                  cacheDirectory: library.tileCacheDirectory)
            } catch {
                stack = MapStack.worldOutline(problems: [error.userSentence])
            }
        }
        await OperationalLayerLoaders.open(OperationalLayers(layers: webMap.flatOperationalLayers, online: true), library: library, client: client)
            .add(to: &stack)
        if let home = webMap.initialExtent?.geographic { return (stack, home) }
        return (stack, (try? await client.webMapItem(library.webMapID))?.extent ?? stack.extent)
    }

    /// The downloaded area's tile package, and the area.
    /// The area's tile package, and the web map's operational layers as kept in the library (which
    /// the area's geodatabases are matched to).
    private func openArea() throws -> (source: any MapSource, area: ItemID, layers: [WebMapLayer]) {
        let downloaded = try library.downloadedArea(named: area ?? "")
        guard let path = library.library.mapPackagePaths(downloaded.record).first else {
            throw MapSourceError("\(Output.cell(downloaded.area.item.title)) has no tile package to draw.")
        }
        return (try PackageMapSource(path: path), downloaded.area.item.id, downloaded.webMapLayers)
    }
}

/// `mapbook snapshot`: draws a map view as text, for scripts and golden tests, or in pixels (a PNG
/// file, or kitty or sixel graphics on standard output) for reports and prints.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Draw a map view as text or as a picture: a downloaded area, a tile package, or the web map's basemap, at a centre and zoom.",
        discussion: """
            Without --area or --file it draws the web map's basemap online (the one chosen with `mapbook basemaps --use`, \
            else its own). Without --center and --zoom the view fits the package's or web map's extent. Problems (damaged \
            tiles, broken features, layers that cannot be drawn) go to standard error; the picture goes to standard output. \
            Areas and files need no network. With --png, --kitty or --sixel the same view is drawn in pixels — --size cells of \
            --cell-size pixels each, its names written over it — as a terminal that shows pictures would.
            """)

    @OptionGroup var source: MapSourceOptions
    @Option(parsing: .unconditional, help: ArgumentHelp("The view's centre: longitude, latitude.", valueName: "LON,LAT")) var center: String?
    @Option(help: ArgumentHelp("Zoom level (0–22, as ArcGIS levels of detail).", valueName: "Z")) var zoom: Double?
    @Option(help: ArgumentHelp("Size in terminal cells.", valueName: "COLUMNSxROWS")) var size = "120x40"
    @Option(help: "braille, blocks or ascii.") var mode: MapMode = .braille
    @Flag(help: "Colour with ANSI escape sequences (256 colours).") var ansi = false
    @Option(help: ArgumentHelp("Draw the view in pixels into a PNG file.", valueName: "FILE")) var png: String?
    @Flag(help: "Draw the view in pixels as kitty graphics on standard output.") var kitty = false
    @Flag(help: "Draw the view in pixels as sixel graphics on standard output.") var sixel = false
    @Option(help: ArgumentHelp("With --png, --kitty or --sixel: a terminal cell's size in pixels (each 4 to 64).", valueName: "WIDTHxHEIGHT"))
    var cellSize = "8x16"

    func validate() throws {
        guard parsedSize != nil else { throw ValidationError("--size must look like 120x40 (each 4 to 1000).") }
        if let center, parsedCenter(center) == nil { throw ValidationError(GeoPoint.notAPoint(center, what: "--center")) }
        if let zoom, !MapViewport.zoomRange.contains(zoom) { throw ValidationError("--zoom must be between 0 and 22.") }
        guard [png != nil, kitty, sixel, ansi].filter({ $0 }).count <= 1 else {
            throw ValidationError("Give at most one of --png, --kitty, --sixel and --ansi.")
        }
        guard parsedCellSize != nil else { throw ValidationError("--cell-size must look like 8x16 (each 4 to 64).") }
    }

    private var parsedCellSize: (width: Int, height: Int)? {
        let parts = cellSize.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ (4...64).contains($0) }) else { return nil }
        return (parts[0], parts[1])
    }

    private var parsedSize: (columns: Int, rows: Int)? {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ (4...1000).contains($0) }) else { return nil }
        return (parts[0], parts[1])
    }

    private func parsedCenter(_ text: String) -> GeoPoint? { GeoPoint(parsing: text) }

    func run() async throws {
        do {
            let (stack, home) = try await self.source.openStack()
            let (columns, rows) = parsedSize!
            var viewport = MapViewport(fitting: home ?? GeoExtent(xmin: -180, ymin: -85, xmax: 180, ymax: 85),
                                       columns: columns, rows: rows)
            if let center, let point = parsedCenter(center) { viewport.center = MercatorPoint(point) }
            if let zoom { viewport = MapViewport(center: viewport.center, zoom: zoom) }
            let pixels = png != nil || kitty || sixel
            // The theme the browser would use: the same picture of the same view.
            let light = (ansi || pixels) && Settings.load().0.theme == .light
            // The layers the map hides are not drawn, as in the browser's first view.
            let request = MapRequest(viewport: viewport, columns: columns, rows: rows, mode: mode,
                                     hiddenLayers: Set(stack.initiallyHidden), colors: ansi || pixels, lightTheme: light)
            guard pixels else {
                let image = await stack.render(request)
                Output.line(ansi ? ANSIText.render(image.frame) : image.frame.text)
                image.problems.forEach(Output.problem)
                return
            }
            let map = try await PixelMap.render(stack, request, cell: parsedCellSize!)
            let picture = map.finished(columns: columns, rows: rows)
            if let png {
                let file = PNG.encode(width: picture.width, height: picture.height, rgba: picture.rgba)
                do { try file.write(to: URL(fileURLWithPath: png), options: .atomic) } catch {
                    throw PixelMapError("The picture could not be written to \(Output.cell(png)): \((error as NSError).localizedDescription)")
                }
            } else {
                let bytes = kitty ? TerminalGraphics.kitty(picture, id: 1, columns: columns, rows: rows, zIndex: 0)
                                  : TerminalGraphics.sixel(picture)
                FileHandle.standardOutput.write(Data(bytes + Array("\n".utf8)))
            }
            map.problems.forEach(Output.problem)
        } catch {
            throw Output.fail(error, json: false)
        }
    }
}

extension MapMode: ExpressibleByArgument {}

/// A frame as text with 256-colour SGR sequences, for `snapshot --ansi`.
enum ANSIText {
    static func render(_ frame: Frame) -> String {
        var out = ""
        var current: CellStyle?
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let cell = frame[x, y]
                if cell.isContinuation { continue }
                if cell.style != current {
                    out += "\u{1B}[0"
                    if let fg = cell.style.foreground { out += ";38;5;\(fg)" }
                    if let bg = cell.style.background { out += ";48;5;\(bg)" }
                    if cell.style.bold { out += ";1" }
                    out += "m"
                    current = cell.style
                }
                out.append(cell.character)
            }
            out += "\u{1B}[0m\n"
            current = nil
        }
        return out
    }
}
