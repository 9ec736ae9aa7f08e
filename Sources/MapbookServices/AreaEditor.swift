import ArcGISModel
import ArcGISPortal
import Editing
import Foundation
import Geometry
import MapbookCore
import OfflineLibrary

/// Why an edit was not saved: one sentence (a value refused names its field).
public struct EditRefused: UserFacingError, Equatable, Sendable {
    public let userMessage: String
    public init(_ sentence: String) { userMessage = TerminalText.sanitizedLine(sentence, maxLength: 2_000) }
}

/// Editing a downloaded area: its feature layers as the area holds them (their fields say what may
/// be typed) and its journal. The one place an edit is checked and saved — the command line's
/// `feature` commands now, the browser's editor next — so both keep to one rule.
public struct AreaEditor {
    /// A layer of the area, as an editor sees it.
    public struct Layer: Sendable {
        public let title: String
        public let info: FeatureLayerInfo
        /// The feature service layer it stands for, which a sync sends its edits to.
        public let serviceLayerURL: String?
        public let features: [LayerFeature]
        /// Its form: what the data and the web map say may be typed, in which order, what is required.
        public let form: FeatureFormDefinition

        public var editLayer: EditLayer { EditLayer(title: title, serviceLayerURL: serviceLayerURL) }

        /// The fields an editor may set, in the layer's order.
        public var editableFields: [FeatureField] { info.fields.filter(\.editable) }

        /// The feature with this object id, when the area holds it.
        public func feature(objectID: Int64) -> LayerFeature? {
            guard let field = info.objectIDField else { return nil }
            return features.first { $0.attributes[field]?.int64 == objectID }
        }

        /// Whether `geometry` is a shape this layer holds.
        func takes(_ geometry: GeoGeometry) -> Bool {
            switch (info.geometryType, geometry) {
            case (.point, .points(let points)): points.count == 1
            case (.multipoint, .points), (.polyline, .lines), (.polygon, .polygons): true
            default: false
            }
        }
    }

    public let areaTitle: String
    public let journal: EditJournal
    public private(set) var layers: [Layer]

    /// The most vertices one edit's shape may have, and the most text a GeoJSON shape may take.
    public static let largestShape = 100_000
    public static let largestGeoJSON = 8 << 20

    /// Opens the area's layers from its own files (no network) and its journal. With `online`, the
    /// web map's own layers instead, from their services (`area` is then the web map's id, whose
    /// journal keeps what is edited online until it is synced, at once).
    public static func open(area: ItemID, title: String, library: OfflineLibrary, webMapLayers: [WebMapLayer],
                            online client: PortalClient? = nil) async throws -> AreaEditor {
        let layersToOpen = OperationalLayers(area: client == nil ? area : nil, layers: webMapLayers, online: client != nil)
        let opened = await OperationalLayerLoaders.open(layersToOpen, library: library, client: client)
        var layers: [Layer] = []
        for loader in opened.features {
            let source = webMapLayers.first { ($0.title ?? $0.id) == loader.title }
            layers.append(Layer(title: loader.title, info: loader.info, serviceLayerURL: source?.url, features: await loader.storedFeatures ?? [],
                                form: FeatureFormDefinition(layer: loader.info, popupInfo: source?.popupInfo, formInfo: source?.formInfo)))
        }
        // The web map's own journal is made the first time it is edited online.
        if client != nil { try FileManager.default.createDirectory(atPath: library.areaDirectory(area), withIntermediateDirectories: true) }
        let journal = try EditJournal(areaFolder: library.areaDirectory(area))
        return AreaEditor(areaTitle: TerminalText.sanitizedLine(title, maxLength: 120), journal: journal, layers: layers)
    }

    /// How many edits wait for a sync in each area of `library` that has a journal (a removed
    /// area's too: its edits outlive its packages). A journal that cannot be read counts as none here;
    /// opening the area says why.
    public static func unsyncedEdits(in library: OfflineLibrary) -> [ItemID: Int] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: library.directory + "/areas")) ?? []
        var counts: [ItemID: Int] = [:]
        for name in folders {
            guard let id = ItemID(name), let count = EditJournal.unsyncedCount(areaFolder: library.areaDirectory(id)), count > 0 else { continue }
            counts[id] = count
        }
        return counts
    }

    /// The feature with this object id read from its layer's service (an online layer keeps none
    /// here), so it can be changed or deleted as an area's is.
    public func fetching(_ objectID: Int64, of layerName: String, client: PortalClient) async throws -> AreaEditor {
        let found = try layer(named: layerName)
        guard found.feature(objectID: objectID) == nil else { return self }
        guard let address = found.serviceLayerURL, let url = URL(string: address),
              let attributes = try await client.feature(objectID: objectID, layer: url) else {
            throw EditRefused("\(TerminalText.sanitizedLine(found.title, maxLength: 60)) has no feature with object id \(objectID) on its service.")
        }
        var editor = self
        editor.layers = layers.map { layer in
            guard layer.title == found.title else { return layer }
            return Layer(title: layer.title, info: layer.info, serviceLayerURL: layer.serviceLayerURL,
                         features: layer.features + [LayerFeature(geometry: nil, attributes: attributes)], form: layer.form)
        }
        return editor
    }

    /// The layer named (its title, ignoring case).
    public func layer(named name: String) throws -> Layer {
        if let layer = layers.first(where: { $0.title.caseInsensitiveCompare(name) == .orderedSame }) { return layer }
        let names = layers.map { TerminalText.sanitizedLine($0.title, maxLength: 60) }
        throw EditRefused("\(areaTitle) has no layer “\(TerminalText.sanitizedLine(name, maxLength: 60))”"
                          + (names.isEmpty ? "; it holds no feature layers." : "; it has \(names.joined(separator: ", "))."))
    }

    /// A feature added to `layer` at `geometry`, with the values typed (field name or alias, then
    /// the text): checked against the layer's fields, required ones included, then saved.
    @discardableResult
    public func add(to layerName: String, geometry: GeoGeometry, values: [(field: String, typed: String)], attaching files: [String] = []) throws -> FeatureEdit {
        let layer = try layer(named: layerName, for: .add)
        try check(geometry, for: layer)
        var attributes = try Self.attributes(values, of: layer)
        // What the feature's type (or its fields) start with, then what its form requires.
        let type = layer.info.types.flatMap { attributes[$0.field] }.flatMap(FeatureField.codeText)
        for (field, value) in layer.form.defaults(ofType: type) where attributes[field] == nil { attributes[field] = value }
        if let missing = layer.form.entries.first(where: { $0.required && (attributes[$0.field.name] ?? .null) == .null }) {
            throw EditRefused("\(missing.label) is required: give it a value (--set \(missing.field.name)=VALUE).")
        }
        let kept = try keep(files, for: layer)
        return try journal.save(FeatureEdit(kind: .add, layer: layer.editLayer, geometry: GeoJSON.json(geometry), attributes: attributes), attaching: kept)
    }

    /// The files checked and copied into the area before the edit naming them is saved; a layer
    /// whose service keeps no attachments refuses them.
    private func keep(_ files: [String], for layer: Layer) throws -> [KeptFile] {
        guard !files.isEmpty else { return [] }
        if layer.info.hasAttachments == false {
            throw EditRefused("\(TerminalText.sanitizedLine(layer.title, maxLength: 60)) keeps no attachments on its service.")
        }
        return try files.map { try KeptFile.keep($0, inArea: (journal.path as NSString).deletingLastPathComponent) }
    }

    /// A pin shared as a feature of `layer` (the POST of the app mapbook descends from): at the pin's
    /// point, its title in the layer's display field when that field takes text and is not set.
    @discardableResult
    public func add(pinTitled title: String, at point: GeoPoint, to layerName: String, values: [(field: String, typed: String)]) throws -> FeatureEdit {
        let layer = try layer(named: layerName, for: .add)
        var values = values
        if let display = layer.info.displayField.flatMap(layer.info.field), display.editable, display.type == "esriFieldTypeString",
           !values.contains(where: { $0.field.caseInsensitiveCompare(display.name) == .orderedSame || $0.field.caseInsensitiveCompare(display.alias ?? "") == .orderedSame }) {
            values.insert((display.name, title), at: 0)
        }
        return try add(to: layer.title, geometry: .points([point]), values: values)
    }

    /// A feature of `layer` changed: its shape moved, or the values typed set.
    @discardableResult
    public func update(_ objectID: Int64, of layerName: String, geometry: GeoGeometry?, values: [(field: String, typed: String)],
                       attaching files: [String] = []) throws -> FeatureEdit {
        let layer = try layer(named: layerName, for: .update)
        let feature = try existing(objectID, of: layer)
        if let geometry { try check(geometry, for: layer) }
        let attributes = try Self.attributes(values, of: layer)
        guard geometry != nil || !attributes.isEmpty || !files.isEmpty else { throw EditRefused("Nothing to change: give --at, --geometry, --set or --attach.") }
        // The values as the area held them: a sync compares the server's with these.
        let original = Dictionary(uniqueKeysWithValues: attributes.keys.map { ($0, feature.attributes[$0] ?? .null) })
        return try journal.save(FeatureEdit(kind: .update, layer: layer.editLayer, globalID: try globalID(of: feature, objectID: objectID, in: layer),
                                            objectID: objectID, geometry: geometry.map(GeoJSON.json), attributes: attributes, original: original),
                                attaching: try keep(files, for: layer))
    }

    /// A feature of `layer` deleted.
    @discardableResult
    public func delete(_ objectID: Int64, of layerName: String) throws -> FeatureEdit {
        let layer = try layer(named: layerName, for: .delete)
        let feature = try existing(objectID, of: layer)
        return try journal.save(FeatureEdit(kind: .delete, layer: layer.editLayer, globalID: try globalID(of: feature, objectID: objectID, in: layer),
                                            objectID: objectID))
    }

    // MARK: The browser's editor

    /// Keeps `edit` of `layer` by the rules the commands keep, with the files `attaching`, and
    /// says what was kept (a shape as the layer holds it: an area's ring closed here).
    public func save(_ edit: FeatureEditAction, layer layerName: String, values: [(field: String, typed: String)], attaching files: [String] = []) throws -> String {
        let shown = TerminalText.sanitizedLine(layerName, maxLength: 60)
        let files = files.map { $0.hasPrefix("~/") ? NSHomeDirectory() + String($0.dropFirst(1)) : $0 }
        switch edit {
        case .add(let point):
            try add(to: layerName, geometry: .points([point]), values: values, attaching: files)
            return "Saved a new feature in \(shown)."
        case .addShape(let points):
            let layer = try layer(named: layerName)
            let shape: GeoGeometry = switch layer.info.geometryType {
            case .polygon: .polygons([[points + points.prefix(1)]])
            case .polyline: .lines([points])
            case .point, .multipoint: .points(points)
            }
            try add(to: layerName, geometry: shape, values: values, attaching: files)
            return "Saved a new feature in \(shown) through \(points.count) points."
        case .update(let objectID):
            try update(objectID, of: layerName, geometry: nil, values: values, attaching: files)
            return "Saved the change of \(shown) \(objectID)" + (files.isEmpty ? "." : " with \(files.count) file\(files.count == 1 ? "" : "s") attached.")
        case .move(let objectID, let point):
            try update(objectID, of: layerName, geometry: .points([point]), values: [])
            return "Moved \(shown) \(objectID) to \(point.degrees(places: 5))."
        case .delete(let objectID):
            try delete(objectID, of: layerName)
            return "Deleted \(shown) \(objectID)."
        }
    }

    /// The layers a point may be added to — point layers whose service takes new features; only
    /// the one `named`, when one is — or why there are none.
    public func layersTakingPoints(named name: String? = nil) throws -> [Layer] {
        if let name {
            let layer = try layer(named: name, for: .add)
            guard layer.info.geometryType == .point else {
                throw EditRefused("\(TerminalText.sanitizedLine(layer.title, maxLength: 60)) holds \(Self.kind(of: layer.info.geometryType)), not points: add one with mapbook feature add --geometry.")
            }
            return [layer]
        }
        guard !layers.isEmpty else { throw EditRefused("\(areaTitle)'s map has no feature layers to edit.") }
        // A layer with no feature service to send its edits to is not offered.
        let points = layers.filter { $0.info.geometryType == .point && $0.serviceLayerURL != nil }
        let taking = points.filter { $0.info.editCapabilities.refusal(of: .add, layer: $0.title) == nil }
        if !taking.isEmpty { return taking }
        if let refused = points.first, let why = refused.info.editCapabilities.refusal(of: .add, layer: refused.title) { throw EditRefused(why) }
        let kinds = Set(layers.map { Self.kind(of: $0.info.geometryType) }).sorted().joined(separator: " and ")
        throw EditRefused("\(areaTitle)'s layers hold \(kinds), no points: a line or an area is added with mapbook feature add --geometry.")
    }

    /// The layers a shape through `count` points may be added to — lines from two points, areas
    /// from three, whose services take new features — or why there are none.
    public func layersTakingShape(of count: Int) throws -> [Layer] {
        let shaped = layers.filter { $0.serviceLayerURL != nil && (($0.info.geometryType == .polyline && count >= 2) || ($0.info.geometryType == .polygon && count >= 3)) }
        let taking = shaped.filter { $0.info.editCapabilities.refusal(of: .add, layer: $0.title) == nil }
        if !taking.isEmpty { return taking }
        if let refused = shaped.first, let why = refused.info.editCapabilities.refusal(of: .add, layer: refused.title) { throw EditRefused(why) }
        if count < 3, layers.contains(where: { $0.info.geometryType == .polygon }) {
            throw EditRefused("An area needs three points or more: lay another with the ruler (R or Enter).")
        }
        throw EditRefused("\(areaTitle)'s layers hold no lines or areas to add this shape to.")
    }

    /// A feature's values as its form shows them, by field name: text as stored, a code as its
    /// code, a date as its day; and the files attached to it on this device, a line each.
    public func formValues(of objectID: Int64, in layerName: String) throws -> (layer: Layer, values: [String: String], attached: [String]) {
        let layer = try layer(named: layerName, for: .update)
        let feature = try existing(objectID, of: layer)
        var values: [String: String] = [:]
        for entry in layer.form.entries {
            guard let value = feature.attributes[entry.field.name], value != .null else { continue }
            if entry.field.isDate, let milliseconds = value.double, milliseconds.isFinite, abs(milliseconds) < 253_402_300_800_000 {
                values[entry.field.name] = String(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: milliseconds / 1000)).prefix(10))
            } else {
                values[entry.field.name] = value.string ?? FeatureField.codeText(value) ?? ""
            }
        }
        let globalID = try globalID(of: feature, objectID: objectID, in: layer)
        let attached: [String] = globalID.isEmpty ? [] : try journal.attachments(ofFeature: globalID).map { file in
            let state = switch file.status {
            case .synced: "synced"
            case .refused(let why): "refused: " + why
            case .pending, .undone: "not synced"
            }
            return "\(TerminalText.sanitizedLine(file.name, maxLength: 80)) (\(Format.bytes(file.size)), \(TerminalText.sanitizedLine(state, maxLength: 120)))"
        }
        return (layer, values, attached)
    }

    // MARK: Rules

    /// The layer named, when it takes this kind of edit: a layer its service keeps read-only
    /// (`capabilities` without Create, Update or Delete) says so before anything is typed in vain.
    private func layer(named name: String, for edit: EditCapabilities.Edit) throws -> Layer {
        let layer = try layer(named: name)
        if let refusal = layer.info.editCapabilities.refusal(of: edit, layer: layer.title) { throw EditRefused(refusal) }
        return layer
    }

    private func existing(_ objectID: Int64, of layer: Layer) throws -> LayerFeature {
        guard let feature = layer.feature(objectID: objectID) else {
            throw EditRefused("\(TerminalText.sanitizedLine(layer.title, maxLength: 60)) in \(areaTitle) has no feature with object id \(objectID).")
        }
        return feature
    }

    private func check(_ geometry: GeoGeometry, for layer: Layer) throws {
        guard layer.takes(geometry) else {
            throw EditRefused("\(TerminalText.sanitizedLine(layer.title, maxLength: 60)) holds \(Self.kind(of: layer.info.geometryType)); the shape given is not one.")
        }
    }

    private static func kind(of type: FeatureGeometryType) -> String {
        switch type {
        case .point: "points"
        case .multipoint: "multipoints"
        case .polyline: "lines"
        case .polygon: "polygons"
        }
    }

    /// The values typed, each checked by its field's rule; a field named twice is refused.
    static func attributes(_ values: [(field: String, typed: String)], of layer: Layer) throws -> [String: JSONValue] {
        var attributes: [String: JSONValue] = [:]
        for (name, typed) in values {
            guard let field = layer.info.fields.first(where: {
                $0.name.caseInsensitiveCompare(name) == .orderedSame || $0.alias?.caseInsensitiveCompare(name) == .orderedSame
            }) else {
                let known = layer.editableFields.map(\.name).prefix(30).joined(separator: ", ")
                throw EditRefused("\(TerminalText.sanitizedLine(layer.title, maxLength: 60)) has no field “\(TerminalText.sanitizedLine(name, maxLength: 60))”; it has \(known).")
            }
            guard attributes[field.name] == nil else { throw EditRefused("\(field.shownName) is set twice.") }
            attributes[field.name] = try field.value(typed: typed).get()
        }
        return attributes
    }

    /// The feature's GlobalID: its own field's, or for a feature added here (object id `-N`) its
    /// edit's, by which a later change finds it on any device.
    private func globalID(of feature: LayerFeature, objectID: Int64, in layer: Layer) throws -> String {
        if objectID < 0, let added = try journal.all().first(where: { $0.sequence == -objectID && $0.kind == .add }) { return added.globalID }
        return layer.info.fields.first { $0.type == "esriFieldTypeGlobalID" }.flatMap { feature.attributes[$0.name]?.string } ?? ""
    }

    /// A shape from `--geometry`: GeoJSON Point, LineString, Polygon or their Multi forms, every
    /// position a longitude and latitude on the globe.
    public static func geometry(geoJSON text: String) throws -> GeoGeometry {
        guard text.utf8.count <= largestGeoJSON else { throw EditRefused("The shape is larger than \(Format.bytes(Int64(largestGeoJSON))) of GeoJSON.") }
        guard let json = try? JSONValue(parsing: Data(text.utf8)) else { throw EditRefused("The shape is not JSON: give a GeoJSON geometry.") }
        // A Feature's geometry is taken too.
        let shape = json["type"]?.string == "Feature" ? json["geometry"] : json
        guard let geometry = GeoJSON.geometry(shape), Self.positions(in: shape) == geometry.vertexCount else {
            throw EditRefused("The shape is not a GeoJSON geometry mapbook takes: a Point, LineString or Polygon (or Multi…) of longitude, latitude positions on the globe.")
        }
        guard geometry.vertexCount <= largestShape else { throw EditRefused("The shape has more than \(Format.grouped(largestShape)) points.") }
        return geometry
    }

    /// Every position the GeoJSON holds, so a shape with a bad one is refused, not quietly trimmed.
    private static func positions(in json: JSONValue?) -> Int {
        func count(_ value: JSONValue) -> Int {
            let items = value.array
            if items.count >= 2, items.allSatisfy({ $0.double != nil }) {
                guard let lon = items[0].double, let lat = items[1].double, abs(lon) <= 180, abs(lat) <= 90 else { return -1_000_000_000 }
                return 1
            }
            return items.map(count).reduce(0, +)
        }
        return json?["coordinates"].map(count) ?? 0
    }
}

extension GeoGeometry {
    /// How many positions it holds, all parts together.
    public var vertexCount: Int {
        switch self {
        case .points(let points): points.count
        case .lines(let lines): lines.reduce(0) { $0 + $1.count }
        case .polygons(let polygons): polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
        }
    }
}
