import ArcGISModel
import Foundation
import Geodatabase
import MapSources
import MapbookCore
import MobilePackages
import TileFormats

/// `mapbook package inspect` of a mobile map package: what it says of itself, its maps, and each
/// map's layers as mapbook reads them — a geodatabase table's feature count (every shape decoded
/// and checked), a tile package's levels, or why a layer is not drawn.
enum MobilePackageInspection {
    static func report(path: String, check: Bool) throws -> (report: JSONValue, damaged: Int) {
        let package = try MobileMapPackage(path: path)
        if check { try package.verifyChecksums() }
        var geodatabases = GeodatabaseFiles(package: package)
        var damagedTotal = 0, maps: [JSONValue] = []
        // A table named by many layers is read and counted once.
        var tables: [String: JSONValue] = [:]
        for map in package.maps {
            var layers: [JSONValue] = []
            for planned in package.layers(of: map) {
                var entry: [String: JSONValue] = [
                    "title": .string(planned.title),
                    "layerType": .text(planned.layer.layerType, width: 60),
                    "basemap": .bool(planned.isBasemap),
                    "visible": .bool(planned.visible),
                ]
                switch planned.data {
                case .notDrawn(let sentence):
                    entry["notDrawn"] = .string(sentence)
                case .tilePackage(let file):
                    entry["file"] = .text(file, width: 200)
                    do {
                        let tiles = try TilePackage(source: package.byteSource(of: file), path: file)
                        let zooms = tiles.levelsWithTiles.compactMap(\.zoom)
                        entry["tiles"] = .string(tiles.info.isVector ? "vector" : "raster")
                        entry["zooms"] = .array([JSONValue.count(zooms.min().map(Int64.init)), JSONValue.count(zooms.max().map(Int64.init))])
                    } catch {
                        entry["notDrawn"] = .string("\(planned.title) cannot be drawn: \(error.userSentence)")
                    }
                case .geodatabase(let file, let itemID):
                    entry["file"] = .text(file, width: 200)
                    entry["serviceLayerId"] = itemID.map { .number(Double($0)) } ?? .null
                    switch geodatabases.table(file, itemID: itemID, title: planned.title) {
                    case .success(let (gdb, table)):
                        let key = file + "\u{0}" + table.table
                        if tables[key] == nil {
                            let (report, damaged) = GeodatabaseInspection.layer(table, of: gdb)
                            damagedTotal += damaged
                            tables[key] = report
                        }
                        entry["features"] = tables[key]
                    case .failure(let missing):
                        entry["notDrawn"] = .string(missing.sentence ?? "\(planned.title) cannot be read (its geodatabase does not open).")
                    }
                }
                layers.append(.object(entry))
            }
            maps.append(.object([
                "name": .text(map.name, width: 120),
                "entry": .text(map.entry, width: 200),
                "bookmarks": .array(map.webMap.bookmarks.map { .text($0.name, width: 120) }),
                "layers": .array(layers),
            ]))
        }
        return (.object([
            "file": .text(URL(fileURLWithPath: path).lastPathComponent, width: 200),
            "type": .string("mobile map package"),
            "form": .string(package.isFolder ? "folder" : "zip"),
            "title": .text(package.info.title, width: 200),
            "snippet": .text(package.info.snippet, width: 400),
            "created": JSONValue.date(package.info.created),
            "modified": JSONValue.date(package.info.modified),
            "size": .number(Double(package.size)),
            "thumbnail": .bool(package.info.thumbnail != nil),
            "maps": .array(maps),
            "problems": .array(package.problems.map { .string($0) }),
        ]), damagedTotal)
    }

    static func print(_ report: JSONValue) {
        let s = { (key: String) in report[key]?.string ?? "" }
        Output.line("\(s("title")) — Mobile map package (\(s("form") == "folder" ? "unpacked folder" : ".mmpk")), \(Format.bytes(report["size"]?.int64 ?? 0))")
        if !s("snippet").isEmpty { Output.line(s("snippet")) }
        let dates = [("created", s("created")), ("modified", s("modified"))].filter { !$0.1.isEmpty }.map { "\($0.0) \($0.1)" }
            .joined(separator: " · ")
        if !dates.isEmpty { Output.line(dates.prefix(1).uppercased() + dates.dropFirst()) }
        let maps = report["maps"]?.array ?? []
        for map in maps {
            let marks = map["bookmarks"]?.array.count ?? 0
            Output.line()
            Output.line("Map \(map["name"]?.string ?? "") (\(map["entry"]?.string ?? "")) · \(marks) \(marks == 1 ? "bookmark" : "bookmarks")")
            let rows = (map["layers"]?.array ?? []).map { layer -> [String] in
                let title = layer["title"]?.string ?? ""
                if let why = layer["notDrawn"]?.string { return [title, layer["layerType"]?.string ?? "", "", "not drawn: " + why] }
                if let features = layer["features"] {
                    let shapes = (features["geometryType"]?.string ?? "").replacingOccurrences(of: "esriGeometry", with: "").lowercased()
                    return [title, shapes, features["features"]?.string ?? "", GeodatabaseInspection.state(features)]
                }
                let zooms = layer["zooms"]?.array.compactMap(\.string) ?? []
                return [title, "\(layer["tiles"]?.string ?? "") tiles", zooms.count == 2 ? "z\(zooms[0])–z\(zooms[1])" : "", "ok"]
            }
            for line in Output.table(["LAYER", "KIND", "FEATURES", "STATE"], rows, rightAligned: [2]) { Output.line("  " + line) }
        }
        for problem in report["problems"]?.array.compactMap(\.string) ?? [] { Output.line("\n" + problem) }
    }
}
