import Foundation
import MapbookCore
import Geometry

/// A layer whose features are all at hand once read: a web map's feature collection, a CSV file.
/// Its description and features as JSON in WGS84 (what a copy on this device keeps, in the same
/// form as a feature service's), and as values to draw.
public struct EmbeddedFeatureLayer: Sendable {
    public var title: String
    /// A layer description as a feature service gives one: `geometryType`, `fields`, `drawingInfo`.
    public var description: JSONValue
    public var featureJSON: [JSONValue]
    public var info: FeatureLayerInfo
    public var features: [LayerFeature]
    /// Features past `limit`, left out.
    public var leftOut: Int
    /// The popup it is shown with (a collection's part may have its own).
    public var popupInfo: JSONValue?

    /// The most features one such layer holds.
    public static let limit = 20_000

    init?(title: String, description: JSONValue, features: [LayerFeature], leftOut: Int, layer: WebMapLayer, popupInfo: JSONValue?) {
        guard let info = FeatureLayerInfo(json: description, overrides: layer.layerDefinition, popupInfo: popupInfo, title: title) else {
            return nil
        }
        self.title = title; self.description = description; self.info = info; self.features = features; self.leftOut = leftOut
        self.popupInfo = popupInfo
        featureJSON = features.map { feature in
            .object(["attributes": .object(feature.attributes), "geometry": feature.geometry.map(EsriFeatures.json) ?? .null])
        }
    }
}

/// A web map's `featureCollection` layers: each sublayer's `layerDefinition` (geometry type, fields,
/// renderer) and `featureSet`, in the spatial reference they say (Web Mercator when they say none,
/// as ArcGIS Online writes them).
public enum FeatureCollectionLayers {
    /// The collection's layers, bottom first, and a sentence for each that cannot be drawn.
    public static func read(_ layer: WebMapLayer) -> (layers: [EmbeddedFeatureLayer], problems: [String]) {
        let name = TerminalText.sanitizedLine(layer.title ?? layer.id ?? "A feature collection", maxLength: 80)
        let parts = layer.featureCollection?["layers"]?.array ?? []
        var layers: [EmbeddedFeatureLayer] = [], problems: [String] = []
        for (index, part) in parts.enumerated() {
            let definition = part["layerDefinition"] ?? .object([:])
            let set = part["featureSet"] ?? .object([:])
            let partName = definition["name"]?.string.map { TerminalText.sanitizedLine($0, maxLength: 60) }
            let title = parts.count == 1 ? name : "\(name) · \(partName ?? "part \(index + 1)")"
            var description = definition.object ?? [:]
            if description["geometryType"] == nil, let type = set["geometryType"] { description["geometryType"] = type }
            let reference = SpatialReference(json: set["spatialReference"]) ?? SpatialReference(json: definition["spatialReference"])
                ?? .webMercator
            let all = EsriFeatures.features(in: .object(["features": set["features"] ?? .array([])]), reference: reference).features
            let kept = Array(all.prefix(EmbeddedFeatureLayer.limit))
            guard let read = EmbeddedFeatureLayer(title: title, description: .object(description), features: kept,
                                                  leftOut: all.count - kept.count, layer: layer,
                                                  popupInfo: part["popupInfo"] ?? layer.popupInfo) else {
                problems.append("\(title) is not drawn: its features have no geometry type mapbook reads.")
                continue
            }
            layers.append(read)
        }
        if parts.isEmpty { problems.append("\(name) is not drawn: its feature collection holds no layers.") }
        return (layers, problems)
    }
}

/// A `CSV` layer's file: a header row, then a point a row from its latitude and longitude columns
/// (those `locationInfo` names, else the usual names: latitude/lat/y, longitude/lon/long/lng/x).
/// RFC 4180: fields may be quoted, quotes doubled inside, line breaks inside quotes; `\n` or `\r\n`.
public enum CSVLayer {
    public struct Unreadable: UserFacingError, Equatable {
        public let userMessage: String
    }

    public static func read(_ data: Data, layer: WebMapLayer) throws(Unreadable) -> EmbeddedFeatureLayer {
        let title = TerminalText.sanitizedLine(layer.title ?? layer.id ?? "A CSV layer", maxLength: 80)
        let layout = layer.csv ?? CSVLayout()
        // UTF-8 (a byte order mark dropped), else Latin-1 as spreadsheets write it.
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(data: bytes, encoding: .utf8) ?? String(data: bytes, encoding: .isoLatin1) else {
            throw Unreadable(userMessage: "\(title) is not drawn: its file is not text.")
        }
        // The header and at most `limit` rows are kept; the rest only counted.
        var (rows, leftOut) = Self.rows(text, delimiter: layout.delimiter, keep: EmbeddedFeatureLayer.limit + 1)
        guard !rows.isEmpty else { throw Unreadable(userMessage: "\(title) is not drawn: its file is empty.") }
        let header = rows.removeFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        func column(_ named: String?, _ usual: [String]) -> Int? {
            if let named, let index = header.firstIndex(where: { $0.caseInsensitiveCompare(named) == .orderedSame }) { return index }
            return usual.lazy.compactMap { name in header.firstIndex { $0.lowercased() == name } }.first
        }
        guard let latitude = column(layout.latitudeField, ["latitude", "lat", "y", "point_y"]),
              let longitude = column(layout.longitudeField, ["longitude", "lon", "long", "lng", "x", "point_x"]) else {
            throw Unreadable(userMessage: "\(title) is not drawn: its file has no latitude and longitude columns mapbook can find.")
        }
        // A column of numbers only is a number field; anything else is text.
        let names = header.enumerated().map { index, name in name.isEmpty ? "field\(index + 1)" : name }
        let numeric = names.indices.map { index in
            rows.allSatisfy { row in index >= row.count || row[index].isEmpty || Double(row[index].trimmingCharacters(in: .whitespaces)) != nil }
        }
        let objectID = names.contains("OBJECTID") ? "__OBJECTID" : "OBJECTID"
        let features = rows.enumerated().map { number, row -> LayerFeature in
            var attributes: FeatureAttributes = [objectID: .number(Double(number + 1))]
            for (index, name) in names.enumerated() {
                let value = index < row.count ? row[index] : ""
                attributes[name] = value.isEmpty ? .null
                    : numeric[index] ? Double(value.trimmingCharacters(in: .whitespaces)).map(JSONValue.number) ?? .string(value) : .string(value)
            }
            let y = latitude < row.count ? Double(row[latitude].trimmingCharacters(in: .whitespaces)) : nil
            let x = longitude < row.count ? Double(row[longitude].trimmingCharacters(in: .whitespaces)) : nil
            guard let x, let y, abs(x) <= 180, abs(y) <= 90 else { return LayerFeature(geometry: nil, attributes: attributes) }
            return LayerFeature(geometry: .points([GeoPoint(longitude: x, latitude: y)]), attributes: attributes)
        }
        let fields: [JSONValue] = [.object(["name": .string(objectID), "type": .string("esriFieldTypeOID")])]
            + names.enumerated().map { index, name in
                .object(["name": .string(name), "alias": .string(name),
                         "type": .string(numeric[index] ? "esriFieldTypeDouble" : "esriFieldTypeString")])
            }
        let coordinates = [latitude, longitude]
        let display = names.indices.first { !coordinates.contains($0) && !numeric[$0] && ["name", "title", "label"].contains(names[$0].lowercased()) }
            ?? names.indices.first { !coordinates.contains($0) && !numeric[$0] }
        var description: [String: JSONValue] = [
            "name": .string(title), "geometryType": .string("esriGeometryPoint"), "objectIdField": .string(objectID),
            "fields": .array(fields), "drawingInfo": .object(["renderer": defaultRenderer]),
        ]
        if let display { description["displayField"] = .string(names[display]) }
        guard let read = EmbeddedFeatureLayer(title: title, description: .object(description), features: features, leftOut: leftOut,
                                              layer: layer, popupInfo: layer.popupInfo) else {
            throw Unreadable(userMessage: "\(title) is not drawn: its file could not be read as points.")
        }
        return read
    }

    /// What ArcGIS draws a CSV layer with when the web map gives no renderer: a small round marker.
    static let defaultRenderer: JSONValue = .object([
        "type": .string("simple"),
        "symbol": .object(["type": .string("esriSMS"), "style": .string("esriSMSCircle"), "size": .number(6),
                           "color": .array([.number(227), .number(26), .number(28), .number(255)])]),
    ])

    /// The file's rows, each a list of fields, the first `keep` kept and the rest counted; blank
    /// lines left out.
    static func rows(_ text: String, delimiter: Character, keep: Int) -> (rows: [[String]], more: Int) {
        var rows: [[String]] = [], row: [String] = [], field = ""
        var more = 0
        var quoted = false, fieldStarted = false
        var iterator = text.makeIterator()
        func endRow() {
            row.append(field)
            if !(row.count == 1 && row[0].isEmpty) {
                if rows.count < keep { rows.append(row) } else { more += 1 }
            }
            row = []; field = ""; fieldStarted = false
        }
        while let c = iterator.next() {
            if quoted {
                if c == "\"" {
                    // A doubled quote is one quote; a single one ends the quoted part.
                    var look = iterator
                    if look.next() == "\"" { field.append("\""); iterator = look } else { quoted = false }
                } else {
                    field.append(c)
                }
                continue
            }
            switch c {
            case "\"" where !fieldStarted: quoted = true; fieldStarted = true
            case delimiter: row.append(field); field = ""; fieldStarted = false
            case "\n", "\r\n", "\r": endRow()
            default: field.append(c); fieldStarted = true
            }
        }
        if !field.isEmpty || !row.isEmpty { endRow() }
        return (rows, more)
    }
}
