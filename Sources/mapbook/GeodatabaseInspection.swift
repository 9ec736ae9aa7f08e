import ArcGISModel
import Foundation
import Geodatabase
import Geometry
import MapbookCore

/// `mapbook package inspect` of a mobile geodatabase: its layers, their shapes and feature counts,
/// read from the file alone. Every shape is decoded and checked; `--check` fails on any damaged.
enum GeodatabaseInspection {
    static func report(path: String) throws -> (report: JSONValue, damaged: Int) {
        let gdb = try Geodatabase(path: path)
        var layers: [JSONValue] = [], damagedTotal = 0
        for layer in gdb.layers {
            let (report, damaged) = self.layer(layer, of: gdb)
            layers.append(report)
            damagedTotal += damaged
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
        return (.object([
            "file": .text(URL(fileURLWithPath: path).lastPathComponent, width: 200),
            "type": .string("geodatabase"),
            "size": .number(Double(size)),
            "layers": .array(layers),
            "tables": .array(gdb.tables.map { .text($0, width: 120) }),
        ]), damagedTotal)
    }

    /// One layer: counted and measured with every shape decoded and checked (streamed, never held).
    /// A layer whose shapes cannot be read, or that the file's limits (or its damage) stop, counts
    /// as damaged, since its shapes were not checked: `--check` fails on it.
    static func layer(_ layer: GeodatabaseLayer, of gdb: Geodatabase) -> (report: JSONValue, damaged: Int) {
        var drawn = 0, extent: GeoExtent?
        var skipped = SkippedShapes(), notRead: String?, count: Int?
        do {
            skipped = try gdb.scan(layer) { feature in
                drawn += 1
                if let box = feature.extent { extent = extent?.union(box) ?? box }
                return true
            }
            count = try gdb.count(of: layer)
        } catch {
            notRead = error.userSentence
        }
        let features: JSONValue = count.map { .number(Double($0)) } ?? .null
        let bounds: JSONValue = extent.map { .object(["xmin": .number($0.xmin), "ymin": .number($0.ymin), "xmax": .number($0.xmax), "ymax": .number($0.ymax)]) } ?? .null
        return (.object([
            "name": .text(layer.info.name, width: 120),
            "table": .text(layer.table, width: 120),
            "serviceLayerId": layer.serviceLayerID.map { .number(Double($0)) } ?? .null,
            "geometryType": .string(layer.info.geometryType.rawValue),
            "spatialReference": .string(layer.spatialReference.summary),
            "features": features,
            "notRead": .text(notRead, width: 300),
            "drawn": .number(Double(drawn)),
            "damaged": .number(Double(skipped.damaged)),
            "damage": .text(skipped.firstDamage, width: 200),
            "cannotBeDrawn": .text(layer.cannotBeDrawn ?? (skipped.undrawable > 0 ? "\(skipped.undrawable) shapes: \(skipped.firstUndrawable ?? "")" : nil), width: 200),
            "renderer": .string(layer.info.renderer.kindName),
            "displayField": .text(layer.info.displayField, width: 120),
            "extent": bounds,
        ]), skipped.damaged + (notRead == nil && layer.cannotBeDrawn == nil ? 0 : 1))
    }

    /// A layer's state in a word or a sentence: "ok", its damage, or why it cannot be drawn.
    static func state(_ layer: JSONValue) -> String {
        layer["notRead"]?.string.map { "not read: \($0)" } ?? layer["cannotBeDrawn"]?.string.map { "cannot be drawn: \($0)" }
            ?? ((layer["damaged"]?.int64 ?? 0) > 0 ? "\(layer["damaged"]?.string ?? "") damaged: \(layer["damage"]?.string ?? "")" : "ok")
    }

    static func print(_ report: JSONValue) {
        let size = report["size"]?.int64 ?? 0
        Output.line("\(report["file"]?.string ?? "") — Mobile geodatabase (.geodatabase), \(Format.bytes(size))")
        Output.line()
        let rows = (report["layers"]?.array ?? []).map { layer -> [String] in
            let s = { (key: String) in layer[key]?.string ?? "" }
            let type = s("geometryType").replacingOccurrences(of: "esriGeometry", with: "").lowercased()
            return [s("serviceLayerId"), s("name"), type, s("features"), s("spatialReference"), state(layer)]
        }
        for line in Output.table(["ID", "LAYER", "SHAPES", "FEATURES", "SPATIAL REFERENCE", "STATE"], rows, rightAligned: [0, 3]) {
            Output.line("  " + line)
        }
        let tables = report["tables"]?.array.compactMap(\.string) ?? []
        if !tables.isEmpty { Output.line("\nTables without shapes (not drawn): \(tables.joined(separator: ", "))") }
    }
}
