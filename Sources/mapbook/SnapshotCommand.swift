import ArgumentParser
import Foundation
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import TerminalCanvas

/// Where a map command's tiles come from: a downloaded area or a file.
struct MapSourceOptions: ParsableArguments {
    @OptionGroup var library: LibraryOptions
    @Option(help: ArgumentHelp("A downloaded map area (item id or title).", valueName: "AREA")) var area: String?
    @Option(help: ArgumentHelp("A .vtpk, .tpkx or .tpk file, or a folder of {z}/{x}/{y}.pbf tiles.", valueName: "FILE")) var file: String?

    func validate() throws {
        guard (area == nil) != (file == nil) else { throw ValidationError("Give exactly one of --area and --file.") }
    }

    /// The source and a title for it.
    func open() throws -> (source: any MapSource, title: String) {
        if let file { return (try MapSources.open(path: file), TerminalText.sanitizedLine(file, maxLength: 120)) }
        let library = self.library.library
        let records = library.downloadRecords()
        let known = try library.loadCatalog(records: records)?.areas ?? records.values.compactMap(\.area)
        let area = try AreaNames.resolve(area ?? "", in: known)
        let title = Output.cell(area.item.title)
        guard let record = records[area.item.id] else {
            throw MapSourceError("\(title) is not downloaded; download it first with `mapbook download`.")
        }
        guard let path = library.mapPackagePaths(record).first else {
            throw MapSourceError("\(title) has no tile package to draw.")
        }
        return (try PackageMapSource(path: path), title)
    }
}

/// `mapbook snapshot`: draws a map view as text, for scripts and golden tests.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Draw a map view as text: a downloaded area or a tile package, at a centre and zoom.",
        discussion: """
            Without --center and --zoom the view fits the package's extent. Problems (damaged tiles, \
            broken features) go to standard error; the picture goes to standard output. Works without a network.
            """)

    @OptionGroup var source: MapSourceOptions
    @Option(help: ArgumentHelp("The view's centre.", valueName: "LON,LAT")) var center: String?
    @Option(help: ArgumentHelp("Zoom level (0–22, as ArcGIS levels of detail).", valueName: "Z")) var zoom: Double?
    @Option(help: ArgumentHelp("Size in terminal cells.", valueName: "COLUMNSxROWS")) var size = "120x40"
    @Option(help: "braille, blocks or ascii.") var mode: MapMode = .braille
    @Flag(help: "Colour with ANSI escape sequences (256 colours).") var ansi = false

    func validate() throws {
        guard parsedSize != nil else { throw ValidationError("--size must look like 120x40 (each 4 to 1000).") }
        if let center, parsedCenter(center) == nil { throw ValidationError("--center must look like -68.2,44.35.") }
        if let zoom, !MapViewport.zoomRange.contains(zoom) { throw ValidationError("--zoom must be between 0 and 22.") }
    }

    private var parsedSize: (columns: Int, rows: Int)? {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ (4...1000).contains($0) }) else { return nil }
        return (parts[0], parts[1])
    }

    private func parsedCenter(_ text: String) -> GeoPoint? {
        let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, abs(parts[0]) <= 180, abs(parts[1]) <= 90 else { return nil }
        return GeoPoint(longitude: parts[0], latitude: parts[1])
    }

    func run() async throws {
        do {
            let (source, _) = try self.source.open()
            let (columns, rows) = parsedSize!
            var viewport = MapViewport(fitting: source.extent ?? GeoExtent(xmin: -180, ymin: -85, xmax: 180, ymax: 85),
                                       columns: columns, rows: rows)
            if let center, let point = parsedCenter(center) { viewport.center = MercatorPoint(point) }
            if let zoom { viewport = MapViewport(center: viewport.center, zoom: zoom) }
            let loader = TileLoader(source: source)
            let image = await loader.render(MapRequest(viewport: viewport, columns: columns, rows: rows, mode: mode, colors: ansi))
            Output.line(ansi ? ANSIText.render(image.frame) : image.frame.text)
            for problem in image.problems { FileHandle.standardError.write(Data("mapbook: \(problem)\n".utf8)) }
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
