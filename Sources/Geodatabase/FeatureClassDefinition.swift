import Foundation
import Geometry
import MapbookCore

/// What a feature class's own definition (`GDB_Items.Definition`, Esri's `DEFeatureClassInfo`
/// XML) says of it: its spatial reference and coordinate grid (XY, Z and M origins and scales),
/// and what kind of features it holds. Geodatabases made by ArcGIS Runtime and Collector keep the
/// grid only here (`st_aux_spatial_reference_systems` holds a placeholder row).
struct FeatureClassDefinition: Sendable, Equatable {
    var spatialReference: SpatialReference?
    var grid: CoordinateGrid?
    /// Why the grid it names cannot be used, when it names one that cannot.
    var gridProblem: String?
    /// `esriFTSimple`, `esriFTAnnotation`, …
    var featureType: String?
    var hasZ = false
    var hasM = false

    /// The `GDB_ItemTypes` UUID of a feature class.
    static let itemType = "{70737809-852C-4A03-9E22-2CECEA5B9BFA}"
    /// The largest definition read: real ones are a few to a few hundred kilobytes.
    static let largest = 4 << 20

    init(xml: String) {
        featureType = XMLText.elements("FeatureType", in: xml).first
        hasZ = XMLText.elements("HasZ", in: xml).first == "true"
        hasM = XMLText.elements("HasM", in: xml).first == "true"
        // The feature class's own reference is the first; its extent carries another copy.
        guard let reference = XMLText.bodies("SpatialReference", in: xml, limit: 1).first.map(String.init) else { return }
        func number(_ name: String) -> Double? { XMLText.elements(name, in: reference).first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        let wkid = number("WKID")?.int(in: 1...999_999), latest = number("LatestWKID")?.int(in: 1...999_999)
        if wkid != nil || latest != nil { spatialReference = SpatialReference(wkid: wkid ?? latest, latestWkid: latest) }
        guard let x = number("XOrigin"), let y = number("YOrigin"), let scale = number("XYScale") else { return }
        let grid = CoordinateGrid(originX: x, originY: y, scale: scale,
                                  originZ: number("ZOrigin") ?? 0, scaleZ: number("ZScale") ?? 1,
                                  originM: number("MOrigin") ?? 0, scaleM: number("MScale") ?? 1)
        if grid.isUsable { self.grid = grid } else { gridProblem = "its coordinate grid (in its definition) is not one shapes can be read on" }
    }

    /// Every feature class's definition, by table name in lower case (`main.` left off). A
    /// definition that cannot be read (too large, not text) is left out, and the aux table is
    /// asked instead.
    static func read(from file: SQLiteFile) throws -> [String: FeatureClassDefinition] {
        guard try file.has("GDB_Items", type: "table") else { return [:] }
        var names: [(rowid: Double, table: String)] = []
        try file.rows("SELECT rowid, Name, PhysicalName FROM GDB_Items WHERE Type = '\(itemType)'") { row in
            if let rowid = row.int(0), let name = row.text(2) ?? row.text(1) {
                let table = name.lowercased().hasPrefix("main.") ? String(name.dropFirst(5)) : name
                names.append((Double(rowid), table.lowercased()))
            }
            return names.count < Geodatabase.mostLayers
        }
        var found: [String: FeatureClassDefinition] = [:]
        for (rowid, table) in names {
            // One at a time: a definition too large to read fails its own statement, not the file's.
            do {
                try file.rows("SELECT Definition FROM GDB_Items WHERE rowid = ? AND length(CAST(Definition AS BLOB)) <= \(largest)",
                              binding: [rowid]) { row in
                    if let xml = row.text(0) { found[table] = FeatureClassDefinition(xml: xml) }
                    return false
                }
            } catch let error as GeodatabaseError where !error.isLimit {
                continue
            }
        }
        return found
    }
}
