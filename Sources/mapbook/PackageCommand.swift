import ArcGISModel
import ArgumentParser
import Foundation
import Geodatabase
import Geometry
import MapbookCore
import MapSources
import MobilePackages
import TileFormats

/// `mapbook package …`: look inside tile packages (.vtpk, .tpkx, .tpk) without a portal.
struct PackageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "package",
        abstract: "Inspect tile packages (.vtpk, .tpkx, .tpk), mobile map packages (.mmpk) and mobile geodatabases, and extract tiles and features.",
        subcommands: [Inspect.self, Tile.self, Features.self])

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "inspect",
            abstract: "Show a package's type, tile format, levels, tile counts per level, extent and size; a geodatabase's layers and feature counts; a mobile map package's maps and their layers.",
            discussion: """
                With --check, every tile (or every shape of a geodatabase or mobile map package, and a zipped package's \
                checksums) is read and judged; any damaged one makes the exit status 1.
                """)

        @Argument(help: ArgumentHelp("The package file (or an unpacked mobile map package's folder).", valueName: "FILE")) var file: String
        @Flag(help: "Read every tile and report those that cannot be decoded.") var check = false
        @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

        func run() throws {
            let report: JSONValue
            var damagedCount = 0
            if MobileMapPackage.recognizes(path: file) {
                let report: JSONValue, damaged: Int
                do { (report, damaged) = try MobilePackageInspection.report(path: file, check: check) } catch { throw Output.fail(error, json: json) }
                if json { try Output.json(report) } else { MobilePackageInspection.print(report) }
                if check, damaged > 0 { throw PackageCommand.checkFailed(damaged) }
                return
            }
            if Geodatabase.isSQLite(path: file) {
                let report: JSONValue, damaged: Int
                do { (report, damaged) = try GeodatabaseInspection.report(path: file) } catch { throw Output.fail(error, json: json) }
                if json { try Output.json(report) } else { GeodatabaseInspection.print(report) }
                if check, damaged > 0 { throw PackageCommand.checkFailed(damaged) }
                return
            }
            do {
                let package = try TilePackage(path: file)
                let verification = check ? try package.verifyTiles() : nil
                damagedCount = verification?.damaged.count ?? 0
                report = try PackageCommand.inspection(of: package, fileSize: package.archive.source.size,
                                                       verification: verification)
            } catch {
                throw Output.fail(error, json: json)
            }
            if json {
                try Output.json(report)
            } else {
                PackageCommand.printInspection(report)
            }
            if damagedCount > 0 { throw ExitCode.failure }
        }
    }

    struct Tile: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "tile",
            abstract: "Write one tile's bytes to standard output, or decode a vector tile.",
            discussion: """
                Z X Y are the web zoom, column and row, whatever level ids the package uses inside. \
                Raw bytes are not written to a terminal; redirect them to a file.
                """)

        @Argument(help: ArgumentHelp("The package file.", valueName: "FILE")) var file: String
        @Argument(help: "Zoom.") var z: Int
        @Argument(help: "Column.") var x: Int
        @Argument(help: "Row.") var y: Int
        @Flag(help: "Decode a vector tile: its layers and features.") var decode = false
        @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

        func run() throws {
            let data: Data
            let package: TilePackage
            do {
                package = try TilePackage(path: file)
                guard let tile = try package.tile(z: z, x: x, y: y) else {
                    throw PackageCommandError.noTile("\(z)/\(x)/\(y)", file: file)
                }
                data = tile
                if decode {
                    guard package.info.isVector else { throw PackageCommandError.notVector }
                    let decoded = try TileContent.decodeVectorTile(data)
                    if json {
                        try Output.json(PackageCommand.decodedTile(decoded, key: TileKey(z: z, x: x, y: y)))
                    } else {
                        PackageCommand.printDecoded(decoded, key: TileKey(z: z, x: x, y: y))
                    }
                    return
                }
            } catch {
                throw Output.fail(error, json: json)
            }
            if json {
                let content: String
                switch TileContent.classify(data, vector: package.info.isVector) {
                case .png: content = "png"
                case .jpeg: content = "jpeg"
                case .vector: content = Deflate.isGzip(data) ? "gzip-mvt" : "mvt"
                case .undecodable: content = "undecodable"
                }
                try Output.json(JSONValue.object([
                    "z": .number(Double(z)), "x": .number(Double(x)), "y": .number(Double(y)),
                    "level": package.info.level(forZoom: z).map { .number(Double($0.level)) } ?? .null,
                    "size": .number(Double(data.count)), "content": .string(content),
                ]))
                return
            }
            guard isatty(STDOUT_FILENO) == 0 else {
                throw Output.fail(PackageCommandError.terminal, json: false)
            }
            Output.write(data)
        }
    }

    struct Features: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "features",
            abstract: "Print a mobile geodatabase layer's features as GeoJSON (RFC 7946), in longitude and latitude.",
            discussion: """
                One geometry type for the layer (the Multi form when any feature has several parts), each feature's \
                object id as its id, the properties in the layer's field order, the fields with their aliases under \
                "fields". A layer that cannot be read, shapes left out (damaged, or of a kind mapbook does not read) and \
                a read stopped by mapbook's limits are said on standard error, and the exit status is then 1.
                """)

        @Argument(help: ArgumentHelp("The mobile geodatabase (.geodatabase), or a mobile map package (.mmpk or its folder).", valueName: "FILE"))
        var file: String
        @Option(help: ArgumentHelp("The layer, by name or table (needed when there is more than one).", valueName: "NAME")) var layer: String?
        @Option(help: ArgumentHelp("In a mobile map package, the map, by name or number (1 is the first).", valueName: "NAME")) var map: String?
        @Option(help: ArgumentHelp("Only features whose shapes cross this box, in degrees.", valueName: "W,S,E,N")) var bbox: String?
        @Option(help: ArgumentHelp("Only features meeting this SQL condition on the layer's columns (\"STATUS = 'open'\").", valueName: "CONDITION"))
        var `where`: String?
        @Option(help: ArgumentHelp("The properties written, in this order.", valueName: "NAME,NAME…")) var fields: String?
        @Option(help: ArgumentHelp("Write coordinates in this system instead of longitude and latitude (named in a \"crs\" member, "
                                   + "as GDAL reads it).", valueName: "EPSG:CODE")) var crs: String?
        @Flag(help: "Indent the features for reading (one feature a line otherwise).") var pretty = false

        func run() throws {
            var features: [LayerFeature] = [], skipped = SkippedShapes(), stopped: String?
            let export: FeatureExport
            do {
                let extent = try bbox.map(Self.box)
                let output = try crs.map(CRSOption.parse)
                let (gdb, chosen) = try Self.open(file, map: map, layer: layer)
                if let reason = chosen.cannotBeDrawn {
                    throw PackageCommandError.unreadable(TerminalText.sanitizedLine(chosen.info.name, maxLength: 80), reason)
                }
                export = FeatureExport(layer: chosen, fields: try FeatureExport.fields(of: chosen, named: fields.map(Self.names)), pretty: pretty,
                                       output: output)
                do {
                    skipped = try gdb.scan(chosen, within: extent, filter: `where`) { feature in
                        if let extent, let box = feature.extent, !box.intersects(extent) { return true }
                        features.append(feature)
                        return true
                    }
                } catch let error as GeodatabaseError where error.isLimit {
                    stopped = error.sentence
                } catch let error as GeodatabaseError where `where` != nil && !error.isLimit {
                    throw PackageCommandError.badCondition(error.sentence)
                }
            } catch {
                throw Output.fail(error, json: false)
            }
            Output.write(Data(export.document(features).utf8))
            let left = skipped.damaged + skipped.undrawable
            if left > 0 { Output.problem("\(left) shapes were left out: \(skipped.firstDamage ?? skipped.firstUndrawable ?? "unreadable").") }
            if let stopped { Output.problem("\(stopped) The \(features.count) features read before are written.") }
            if left > 0 || stopped != nil { throw ExitCode.failure }
        }

        /// The geodatabase and its layer: the file itself, or a mobile map package's layer in a map.
        static func open(_ file: String, map: String?, layer: String?) throws -> (Geodatabase, GeodatabaseLayer) {
            guard MobileMapPackage.recognizes(path: file) else {
                guard map == nil else { throw PackageCommandError.notAPackage }
                let gdb = try Geodatabase(path: file)
                return (gdb, try Self.layer(named: layer, in: gdb))
            }
            let package = try MobileMapPackage(path: file)
            let chosen = try package.map(named: map)
            let tables = package.layers(of: chosen).compactMap { planned -> (String, String, Int?)? in
                if case .geodatabase(let file, let id) = planned.data { return (planned.title, file, id) }
                return nil
            }
            let names = tables.map(\.0).joined(separator: ", ")
            let found: (String, String, Int?)
            if let layer {
                guard let match = tables.first(where: { $0.0.caseInsensitiveCompare(layer) == .orderedSame }) else {
                    throw PackageCommandError.noLayer(TerminalText.sanitizedLine(layer, maxLength: 80), names)
                }
                found = match
            } else {
                guard tables.count == 1 else { throw PackageCommandError.chooseLayer(names) }
                found = tables[0]
            }
            var files = GeodatabaseFiles(package: package)
            switch files.table(found.1, itemID: found.2, title: found.0) {
            case .success(let table): return table
            case .failure(let missing): throw MobilePackageError(missing.sentence ?? "\(found.0) cannot be read (its geodatabase does not open).")
            }
        }

        static func box(_ text: String) throws -> GeoExtent {
            guard let box = GeoExtent(parsing: text) else { throw PackageCommandError.badBox(TerminalText.sanitizedLine(text, maxLength: 80)) }
            return box
        }

        static func names(_ text: String) -> [String] {
            text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        /// The layer asked for, or the only one; the names to choose from when neither.
        static func layer(named name: String?, in gdb: Geodatabase) throws -> GeodatabaseLayer {
            let names = gdb.layers.map { TerminalText.sanitizedLine($0.info.name, maxLength: 80) }.joined(separator: ", ")
            guard let name else {
                guard gdb.layers.count == 1 else { throw PackageCommandError.chooseLayer(names) }
                return gdb.layers[0]
            }
            guard let found = gdb.layers.first(where: { $0.info.name.caseInsensitiveCompare(name) == .orderedSame || $0.table.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw PackageCommandError.noLayer(TerminalText.sanitizedLine(name, maxLength: 80), names)
            }
            return found
        }
    }

    /// `--check` found damaged shapes, or layers whose shapes could not be read: said, and exit 1.
    static func checkFailed(_ count: Int) -> ExitCode {
        Output.problem("The check failed: \(count) damaged \(count == 1 ? "shape or unread layer" : "shapes or unread layers") (see STATE).")
        return ExitCode.failure
    }

    // MARK: Reports

    /// The JSON of `mapbook package inspect --json` (see docs/cli.md).
    static func inspection(of package: TilePackage, fileSize: Int64,
                           verification: (checked: Int, damaged: [TilePackage.DamagedTile])?) throws -> JSONValue {
        let info = package.info
        var total = 0
        var levels: [JSONValue] = []
        for level in info.levels {
            let count = try package.tilePositions(level: level.level).count
            total += count
            levels.append(.object([
                "level": .number(Double(level.level)),
                "zoom": level.zoom.map { .number(Double($0)) } ?? .null,
                "resolution": .number(level.resolution),
                "scale": .number(level.scale),
                "tiles": .number(Double(count)),
            ]))
        }
        let style = try package.style()
        return .object([
            "file": .text(package.path, width: 4096),
            "size": .number(Double(fileSize)),
            "type": .string(info.kind.rawValue),
            "name": .text(info.name),
            "bundleFormat": .string(info.bundleFormat.rawValue),
            "tileFormat": .text(info.tileFormat, width: 32),
            "tileSize": .number(Double(info.tileSize)),
            "spatialReference": info.spatialReference.map { sr in
                .object(["wkid": sr.wkid.map { .number(Double($0)) } ?? .null,
                         "latestWkid": sr.latestWkid.map { .number(Double($0)) } ?? .null])
            } ?? .null,
            "extent": .extent(info.fullExtent?.geographic),
            "levels": .array(levels),
            "tileCount": .number(Double(total)),
            "styleLayers": style.map { .number(Double($0.layers.count)) } ?? .null,
            "check": verification.map { result in
                .object([
                    "checked": .number(Double(result.checked)),
                    "damaged": .array(result.damaged.map { tile in
                        .object(["level": .number(Double(tile.level)), "row": .number(Double(tile.row)),
                                 "column": .number(Double(tile.column)), "reason": .text(tile.reason)])
                    }),
                ])
            } ?? .null,
        ])
    }

    static func printInspection(_ report: JSONValue) {
        let kinds = ["vtpk": "Vector Tile Package (.vtpk)", "tpkx": "Tile Package (.tpkx)", "tpk": "Tile Package (.tpk)"]
        let s = { (key: String) in report[key]?.string ?? "–" }
        let size = report["size"]?.int64 ?? 0
        Output.line("\(s("name")) — \(kinds[s("type")] ?? s("type"))")
        var rows = [("File", "\(s("file")), \(Format.bytes(size))"),
                    ("Tiles", "\(s("tileFormat")), \(s("tileSize"))×\(s("tileSize")) px, \(s("bundleFormat")) bundles")]
        if let e = report["extent"], let xmin = e["xmin"]?.double, let ymin = e["ymin"]?.double,
           let xmax = e["xmax"]?.double, let ymax = e["ymax"]?.double {
            rows.append(("Extent", String(format: "%.4f, %.4f — %.4f, %.4f (lon, lat)", xmin, ymin, xmax, ymax)))
        }
        if let layers = report["styleLayers"]?.int64 { rows.append(("Style", "\(layers) layers")) }
        for (name, value) in rows { Output.line(name.padding(toLength: 7, withPad: " ", startingAt: 0) + value) }
        Output.line()
        let levelRows = (report["levels"]?.array ?? []).map { level in
            [level["level"]?.string ?? "", level["zoom"]?.string ?? "–",
             String(format: "%.4f", level["resolution"]?.double ?? 0),
             "1:" + String(format: "%.0f", level["scale"]?.double ?? 0), level["tiles"]?.string ?? "0"]
        }
        let totals = ["total", "", "", "", s("tileCount")]
        for line in Output.table(["LEVEL", "ZOOM", "RESOLUTION (m/px)", "SCALE", "TILES"], levelRows + [totals],
                                 rightAligned: [2, 3, 4]) {
            Output.line("  " + line)
        }
        if let check = report["check"], check != .null {
            let damaged = check["damaged"]?.array ?? []
            Output.line()
            let checked = check["checked"]?.string ?? "0"
            Output.line("Checked \(checked) tiles: " + (damaged.isEmpty ? "all decodable." : "\(damaged.count) of \(checked) tiles damaged."))
            for tile in damaged {
                Output.line("  level \(tile["level"]?.string ?? "") row \(tile["row"]?.string ?? "") "
                            + "column \(tile["column"]?.string ?? ""): \(tile["reason"]?.string ?? "")")
            }
        }
    }

    /// A decoded vector tile as JSON: layers, and features with their properties and geometry in
    /// tile coordinates (parts as lists of [x, y]).
    static func decodedTile(_ tile: MVTTile, key: TileKey) -> JSONValue {
        .object([
            "z": .number(Double(key.z)), "x": .number(Double(key.x)), "y": .number(Double(key.y)),
            "layers": .array(tile.layers.map { layer in
                .object([
                    "name": .text(layer.name),
                    "version": .number(Double(layer.version)),
                    "extent": .number(Double(layer.extent)),
                    "features": .array(layer.features.map { feature in
                        var parts: [JSONValue] = []
                        var start = 0
                        for end in feature.geometry.partEnds {
                            parts.append(.array(feature.geometry.points[start..<end].map {
                                .array([.number(Double($0.x)), .number(Double($0.y))])
                            }))
                            start = end
                        }
                        return .object([
                            "id": feature.id.map { .number(Double($0)) } ?? .null,
                            "type": .string(["unknown", "point", "line", "polygon"][Int(feature.type.rawValue)]),
                            "properties": .object(layer.properties(of: feature).reduce(into: [:]) { result, property in
                                result[Output.cell(property.key, width: 256)] = json(property.value)
                            }),
                            "geometry": .array(parts),
                            "geometryError": feature.geometryError.map { .text($0.description) } ?? .null,
                        ])
                    }),
                ])
            }),
        ])
    }

    static func json(_ value: MVTValue) -> JSONValue {
        switch value {
        case .string(let s): return .text(s, width: 4096)
        case .float(let f): return .number(Double(f))
        case .double(let d): return d.isFinite ? .number(d) : .null
        case .int(let i), .sint(let i): return .number(Double(i))
        case .uint(let u): return .number(Double(u))
        case .bool(let b): return .bool(b)
        }
    }

    static func printDecoded(_ tile: MVTTile, key: TileKey) {
        Output.line("Tile \(key): \(tile.layers.count) layer\(tile.layers.count == 1 ? "" : "s")")
        Output.line()
        let rows = tile.layers.map { layer in
            let types = Dictionary(grouping: layer.features, by: \.type)
            let summary = [(MVTGeometryType.point, "points"), (.lineString, "lines"), (.polygon, "polygons")]
                .compactMap { type, name in types[type].map { "\($0.count) \(name)" } }.joined(separator: ", ")
            let broken = layer.features.filter { $0.geometryError != nil }.count
            return [Output.cell(layer.name, width: 32), String(layer.features.count),
                    summary + (broken > 0 ? ", \(broken) with bad geometry" : ""),
                    Output.cell(layer.keys.joined(separator: ", "), width: 60)]
        }
        for line in Output.table(["LAYER", "FEATURES", "GEOMETRY", "KEYS"], rows, rightAligned: [1]) {
            Output.line("  " + line)
        }
    }
}

enum PackageCommandError: Error, UserFacingError {
    case noTile(String, file: String)
    case notVector
    case terminal
    case chooseLayer(String)
    case noLayer(String, String)
    case noField(String, String)
    case unreadable(String, String)
    case badBox(String)
    case badCondition(String)
    case notAPackage

    var userMessage: String {
        switch self {
        case .noTile(let key, let file): return "There is no tile \(key) in \(file)."
        case .notVector: return "This package holds images, not vector tiles: leave out --decode to get the image bytes."
        case .terminal: return "Standard output is a terminal: redirect the tile to a file, or use --decode or --json."
        case .chooseLayer(let names): return "The file holds several layers: choose one with --layer (\(names.isEmpty ? "none has a shape" : names))."
        case .noLayer(let name, let names): return "There is no layer “\(name)” in the file: its layers are \(names.isEmpty ? "none" : names)."
        case .noField(let name, let names): return "The layer has no field “\(name)”: its fields are \(names)."
        case .unreadable(let name, let reason): return "\(name) cannot be read: \(reason)."
        case .badBox(let text): return "--bbox takes west,south,east,north in degrees, not “\(text)”."
        case .badCondition(let sentence): return "The --where condition cannot be used: \(sentence)"
        case .notAPackage: return "--map is for a mobile map package; this file is a geodatabase."
        }
    }
}

/// `--crs` of `package features` and `identify`: a code PROJ knows, and the transformation into it.
enum CRSOption {
    struct Problem: Error, UserFacingError {
        let userMessage: String
        init(_ sentence: String) { userMessage = sentence }
    }

    static func parse(_ text: String) throws -> (system: NamedCoordinateSystem, transform: CoordinateTransform) {
        do throws(CoordinateSystemError) { return try NamedCoordinateSystem.fromWGS84(text) } catch {
            throw Problem("--crs names a coordinate system mapbook cannot use: \(error.reason).")
        }
    }
}
