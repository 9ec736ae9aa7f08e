import Foundation
import LoopbackHTTP
import MapbookAssets
import MapbookCore
import Geometry

/// Explore Maine's operational layers as a FeatureServer: "Places" (layer 0, the GeoNames towns as
/// points, a unique-value renderer by size class) and "Counties" (layer 1, polygons, class breaks
/// by land area, labelled by name). The service JSON, each layer's JSON and `query` in ArcGIS's
/// shapes: envelope and simple `where` filters, `outFields`, `outSR=4326`, paging with
/// `resultOffset`/`resultRecordCount` and `exceededTransferLimit`, errors as ArcGIS sends them;
/// and `applyEdits` (service and layer), which changes what `query` answers from then on.
struct SampleFeatureServer: Sendable {
    static let path = "/arcgis/rest/services/Explore_Maine_Places/FeatureServer"
    /// Small pages for Places, so that reading them all takes paging.
    static let placesPageSize = 100

    struct Layer: Sendable {
        var json: JSONValue
        var features: [(attributes: [String: JSONValue], geometry: JSONValue, extent: GeoExtent)]
        var maxRecordCount: Int
    }

    /// The features as first served (what areas' geodatabases hold); each portal's store starts
    /// from them (`makeStore`), so one portal's edits never reach another's.
    let layers: [Layer]

    init(basemap: SampleBasemap) {
        let counties = basemap.features(of: "counties").compactMap { feature -> (name: String, geometry: GeoGeometry)? in
            guard let name = feature.property("name")?.string else { return nil }
            return (name, feature.geometry)
        }
        var places: [(attributes: [String: JSONValue], geometry: JSONValue, extent: GeoExtent)] = []
        for feature in basemap.features(of: "places") {
            guard case .points(let points) = feature.geometry, let point = points.first, let name = feature.property("name")?.string else { continue }
            let population = feature.property("population")?.double ?? 0
            let county = counties.first { $0.geometry.covers(point) }?.name
            let attributes: [String: JSONValue] = [
                "OBJECTID": .number(Double(places.count + 1)), "GlobalID": .string(SampleFeatureStore.seedGlobalID(layer: 0, objectID: places.count + 1)),
                "name": .string(name), "population": .number(population),
                "county": county.map { .string($0) } ?? .null, "size_class": .string(Self.sizeClass(population)),
            ]
            places.append((attributes, .object(["x": .number(point.longitude), "y": .number(point.latitude)]),
                           GeoExtent(xmin: point.longitude, ymin: point.latitude, xmax: point.longitude, ymax: point.latitude)))
        }
        let countyFeatures = counties.enumerated().compactMap { index, county -> (attributes: [String: JSONValue], geometry: JSONValue, extent: GeoExtent)? in
            guard let extent = county.geometry.extent else { return nil }
            let attributes: [String: JSONValue] = [
                "OBJECTID": .number(Double(index + 1)), "GlobalID": .string(SampleFeatureStore.seedGlobalID(layer: 1, objectID: index + 1)),
                "NAME": .string(county.name),
                "area_km2": .number(Self.squareKilometres(county.geometry).rounded()),
            ]
            return (attributes, Self.rings(county.geometry), extent)
        }
        layers = [
            Layer(json: Self.placesJSON, features: places, maxRecordCount: Self.placesPageSize),
            Layer(json: Self.countiesJSON, features: countyFeatures, maxRecordCount: 1000),
        ]
    }

    func makeStore() -> SampleFeatureStore {
        SampleFeatureStore(layers.map { $0.features.map { SampleFeatureStore.Feature(attributes: $0.attributes, geometry: $0.geometry, extent: $0.extent) } })
    }

    static func sizeClass(_ population: Double) -> String {
        population >= 10_000 ? "City" : population >= 2_000 ? "Town" : "Village"
    }

    /// A polygon's area on a sphere, near enough for a sample: each ring's shoelace in kilometres
    /// (longitude shortened by the cosine of latitude), holes taken away.
    static func squareKilometres(_ geometry: GeoGeometry) -> Double {
        guard case .polygons(let polygons) = geometry else { return 0 }
        let kmPerDegree = 111.32
        return polygons.reduce(0) { total, polygon in
            polygon.enumerated().reduce(total) { sum, ring in
                let points = ring.element
                let twice = zip(points, points.dropFirst() + points.prefix(1)).reduce(0.0) { acc, pair in
                    let scale = cos((pair.0.latitude + pair.1.latitude) / 2 * .pi / 180)
                    return acc + (pair.0.longitude * scale * pair.1.latitude - pair.1.longitude * scale * pair.0.latitude)
                }
                let area = abs(twice) / 2 * kmPerDegree * kmPerDegree
                return ring.offset == 0 ? sum + area : sum - area
            }
        }
    }

    /// Esri rings: outer rings clockwise, holes counter-clockwise.
    static func rings(_ geometry: GeoGeometry) -> JSONValue {
        guard case .polygons(let polygons) = geometry.esriWound else { return .null }
        return .object(["rings": .array(polygons.flatMap { $0 }.map { ring in .array(ring.map { .array([.number($0.longitude), .number($0.latitude)]) }) })])
    }

    /// `cutAnswer`: an `applyEdits` is applied, then its answer is cut off after a few bytes (a
    /// server that applied the edits and dropped the connection).
    /// `readOnly`: the layers allow only "Query,Sync", and `applyEdits` is refused as ArcGIS refuses it.
    func respond(_ request: LoopbackRequest, store: SampleFeatureStore, down: Bool, cutAnswer: Bool = false, readOnly: Bool = false) -> LoopbackResponse {
        if down {
            return LoopbackResponse(status: 503, headers: [("Content-Type", "text/html")], body: Data("<html><body>Service Unavailable</body></html>".utf8))
        }
        let rest = request.path.dropFirst(Self.path.count).split(separator: "/").map(String.init)
        if rest.count >= 3, let index = Int(rest[0]), layers.indices.contains(index), let objectID = Int64(rest[1]) {
            return attachment(rest.dropFirst(2), layer: index, objectID: objectID, request: request, store: store, cutAnswer: cutAnswer)
        }
        let parameters = request.headers["content-type"]?.hasPrefix("multipart/") == true ? request.query : SampleExportRoutes.parameters(request)
        guard parameters["f"] == "json" || parameters["f"] == "pjson" else { return SampleREST.html }
        let pretty = parameters["f"] == "pjson"
        guard let first = rest.first else { return SampleREST.json(serviceJSON, pretty: pretty) }
        if readOnly, rest.last == "applyEdits" {
            return SampleREST.json(SampleREST.error(400, "Unable to complete operation.", details: ["This operation is not supported."]))
        }
        if first == "applyEdits" { return cut(applyEdits(request, parameters, layer: nil, store: store), cutAnswer) }
        if first == "synchronizeReplica" { return synchronizeReplica(request, parameters, store: store) }
        guard let index = Int(first), layers.indices.contains(index) else {
            return SampleREST.json(SampleREST.error(400, "Invalid or missing input parameters.", details: ["Invalid layer id."]))
        }
        switch rest.dropFirst().first {
        case nil:
            guard readOnly, case .object(var members) = layers[index].json else { return SampleREST.json(layers[index].json, pretty: pretty) }
            members["capabilities"] = .string("Query,Sync")
            return SampleREST.json(.object(members), pretty: pretty)
        case "query": return SampleREST.json(query(index, parameters, store: store), pretty: pretty)
        case "applyEdits": return cut(applyEdits(request, parameters, layer: index, store: store), cutAnswer)
        default: return .text("Not Found", status: 404)
        }
    }

    /// `{layer}/{objectId}/addAttachment` (a multipart POST), `…/attachments` (their list) and
    /// `…/attachments/{id}` (a file's bytes).
    private func attachment(_ rest: ArraySlice<String>, layer: Int, objectID: Int64, request: LoopbackRequest, store: SampleFeatureStore,
                            cutAnswer: Bool) -> LoopbackResponse {
        switch (rest.first, rest.count) {
        case ("addAttachment", 1):
            guard request.method == "POST", let file = Self.multipartFile(request, field: "attachment") else {
                return SampleREST.json(SampleREST.error(400, "Unable to complete operation.", details: ["An attachment file is required."]))
            }
            return cut(SampleREST.json(store.addAttachment(layer: layer, objectID: objectID, name: file.name, contentType: file.contentType, data: file.data)), cutAnswer)
        case ("attachments", 1):
            let infos = store.attachments(layer: layer, objectID: objectID).map { kept -> JSONValue in
                .object(["id": .number(Double(kept.id)), "name": .string(kept.name), "size": .number(Double(kept.data.count)),
                         "contentType": .string(kept.contentType), "parentObjectId": .number(Double(objectID))])
            }
            return SampleREST.json(.object(["attachmentInfos": .array(infos)]))
        case ("attachments", 2):
            guard let kept = store.attachments(layer: layer, objectID: objectID).first(where: { String($0.id) == rest.last }) else {
                return SampleREST.json(SampleREST.error(404, "Attachment not found."))
            }
            return LoopbackResponse(status: 200, headers: [("Content-Type", kept.contentType)], body: kept.data)
        default:
            return .text("Not Found", status: 404)
        }
    }

    /// The file part named `field` of a `multipart/form-data` body.
    static func multipartFile(_ request: LoopbackRequest, field: String) -> (name: String, contentType: String, data: Data)? {
        guard let type = request.headers["content-type"], let range = type.range(of: "boundary=") else { return nil }
        let boundary = Data(("--" + type[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))).utf8)
        let body = request.body, separator = Data("\r\n\r\n".utf8)
        var start = body.startIndex
        while let mark = body.range(of: boundary, in: start..<body.endIndex) {
            guard let headEnd = body.range(of: separator, in: mark.upperBound..<body.endIndex) else { return nil }
            let head = String(decoding: body[mark.upperBound..<headEnd.lowerBound], as: UTF8.self)
            guard let next = body.range(of: Data("\r\n".utf8) + boundary, in: headEnd.upperBound..<body.endIndex) else { return nil }
            if head.contains("name=\"\(field)\"") {
                let name = head.firstMatch(of: /filename="([^"]*)"/).map { String($0.1) } ?? field
                let contentType = head.firstMatch(of: /Content-Type: *([^\r\n]+)/).map { String($0.1) } ?? "application/octet-stream"
                return (name, contentType, Data(body[headEnd.upperBound..<next.lowerBound]))
            }
            start = next.lowerBound + 2
        }
        return nil
    }

    private func cut(_ response: LoopbackResponse, _ cut: Bool) -> LoopbackResponse {
        guard cut else { return response }
        var dropped = response
        dropped.delivery.closeAfterBodyBytes = min(12, response.body.count / 2)
        return dropped
    }

    /// `synchronizeReplica` (a POST, `async=false`, `dataFormat=json`, the edits embedded): the
    /// features of the replica's layers changed after `replicaServerGen`, and the generation now.
    /// This service takes a replica's edits by `applyEdits`, so `syncDirection=upload` sends none
    /// back and `edits` is refused.
    private func synchronizeReplica(_ request: LoopbackRequest, _ parameters: [String: String], store: SampleFeatureStore) -> LoopbackResponse {
        func invalid(_ detail: String) -> LoopbackResponse {
            SampleREST.json(SampleREST.error(400, "Unable to synchronize replica.", details: [detail]))
        }
        guard request.method == "POST" else { return invalid("This operation is only supported via POST.") }
        guard let replicaID = parameters["replicaID"], FeatureEditID.isWellFormed(replicaID) else { return invalid("Invalid replicaID.") }
        guard let generation = parameters["replicaServerGen"].flatMap({ Int64($0) }), generation >= 0 else { return invalid("Invalid replicaServerGen.") }
        guard parameters["edits"].map({ $0.isEmpty || $0 == "[]" }) ?? true else { return invalid("Edits are taken by applyEdits on this service.") }
        let direction = parameters["syncDirection"] ?? "bidirectional"
        guard ["download", "bidirectional", "upload"].contains(direction) else { return invalid("Invalid syncDirection.") }
        let layers = (parameters["syncLayers"].flatMap { text in
            (try? JSONValue(parsing: Data(text.utf8)))?.array.compactMap { $0["id"]?.int64.map(Int.init) }
        }) ?? Array(layers.indices)
        let (edits, now) = direction == "upload" ? (JSONValue.array([]), generation) : store.changes(since: generation, layers: layers)
        return SampleREST.json(.object([
            "replicaID": .string(replicaID), "replicaServerGen": .number(Double(now)),
            "layerServerGens": .array(layers.map { .object(["id": .number(Double($0)), "serverGen": .number(Double(now))]) }),
            "responseType": .string("esriReplicaResponseTypeEdits"), "transportType": .string("esriTransportTypeEmbedded"),
            "edits": edits,
        ]))
    }

    /// `applyEdits`, a POST: on the service, `edits` is `[{id, adds, updates, deletes}]` and the
    /// answer one result per layer; on a layer, `adds`/`updates`/`deletes` and one result.
    /// `useGlobalIds` finds features by GlobalID (deletes are GlobalIDs); `rollbackOnFailure` is
    /// true by default on the service, as ArcGIS's.
    private func applyEdits(_ request: LoopbackRequest, _ parameters: [String: String], layer: Int?, store: SampleFeatureStore) -> LoopbackResponse {
        guard request.method == "POST" else {
            return SampleREST.json(SampleREST.error(400, "Unable to complete operation.", details: ["This operation is only supported via POST."]))
        }
        func array(_ name: String) -> [JSONValue]? {
            guard let text = parameters[name], !text.isEmpty else { return [] }
            guard case .array(let items)? = try? JSONValue(parsing: Data(text.utf8)) else { return nil }
            return items
        }
        let invalid = SampleREST.json(SampleREST.error(400, "Unable to complete operation.", details: ["Invalid edits parameter."]))
        let useGlobalIds = parameters["useGlobalIds"] == "true"
        var edits: [SampleFeatureStore.LayerEdits] = []
        if let layer {
            guard let adds = array("adds"), let updates = array("updates"), let deletes = array("deletes") ?? parameters["deletes"].map({ text in
                text.split(separator: ",").map { part -> JSONValue in
                    let trimmed = part.trimmingCharacters(in: .whitespaces)
                    return Int(trimmed).map { .number(Double($0)) } ?? .string(trimmed)
                }
            }) else { return invalid }
            edits = [.init(layer: layer, adds: adds, updates: updates, deletes: deletes)]
        } else {
            guard let list = array("edits") else { return invalid }
            for entry in list {
                guard let id = entry["id"]?.int64, let index = Int(exactly: id), layers.indices.contains(index) else { return invalid }
                edits.append(.init(layer: index, adds: entry["adds"]?.array ?? [], updates: entry["updates"]?.array ?? [],
                                   deletes: entry["deletes"]?.array ?? []))
            }
        }
        let rollback = parameters["rollbackOnFailure"].map { $0 == "true" } ?? (layer == nil)
        let results = store.apply(edits, useGlobalIds: useGlobalIds, rollbackOnFailure: rollback)
        if layer != nil, let only = results.array.first, case .object(var members) = only {
            members["id"] = nil
            return SampleREST.json(.object(members))
        }
        return SampleREST.json(results)
    }

    private var serviceJSON: JSONValue {
        .object([
            "currentVersion": .number(11.3), "serviceDescription": .string("Explore Maine's places and counties."),
            "maxRecordCount": .number(1000), "capabilities": .string("Create,Delete,Query,Update,Editing,Extract,Sync"), "syncEnabled": .bool(true),
            "supportsApplyEditsWithGlobalIds": .bool(true), "supportsRollbackOnFailureParameter": .bool(true),
            "supportsAsync": .bool(true),
            "spatialReference": .object(["wkid": .number(4326), "latestWkid": .number(4326)]),
            "layers": .array(layers.enumerated().map { index, layer in
                .object(["id": .number(Double(index)), "name": layer.json["name"] ?? .null, "geometryType": layer.json["geometryType"] ?? .null])
            }),
            "tables": .array([]),
        ])
    }

    private func query(_ index: Int, _ query: [String: String], store: SampleFeatureStore) -> JSONValue {
        let layer = layers[index]
        let features = store.features(of: index)
        var matches = features.indices.map { $0 }
        if let text = query["geometry"], !text.isEmpty {
            let box = Self.envelope(text)
            guard let box else { return SampleREST.error(400, "Unable to complete operation.", details: ["Invalid geometry."]) }
            matches = matches.filter { i in
                let e = features[i].extent
                return e.xmin <= box.xmax && e.xmax >= box.xmin && e.ymin <= box.ymax && e.ymax >= box.ymin
            }
        }
        guard let conditions = Self.conditions(query["where"] ?? "1=1") else {
            return SampleREST.error(400, "Unable to complete operation.", details: ["Invalid query."])
        }
        matches = matches.filter { i in conditions.allSatisfy { $0(features[i].attributes) } }
        // `objectIds=3,7`: only those (a list that is not numbers is the server's 400, as ArcGIS's).
        if let text = query["objectIds"], !text.isEmpty {
            let asked = text.split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard asked.allSatisfy({ $0 != nil }) else { return SampleREST.error(400, "Unable to complete operation.", details: ["Invalid objectIds."]) }
            let wanted = Set(asked.compactMap { $0 })
            matches = matches.filter { i in features[i].attributes["OBJECTID"]?.int64.map(wanted.contains) ?? false }
        }
        if query["returnCountOnly"] == "true" { return .object(["count": .number(Double(matches.count))]) }
        let offset = max(Int(query["resultOffset"] ?? "") ?? 0, 0)
        let count = min(max(Int(query["resultRecordCount"] ?? "") ?? layer.maxRecordCount, 1), layer.maxRecordCount)
        let page = matches.dropFirst(offset).prefix(count)
        let fields = (query["outFields"] ?? "*").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let returnGeometry = query["returnGeometry"] != "false"
        return .object([
            "objectIdFieldName": .string("OBJECTID"), "geometryType": layer.json["geometryType"] ?? .null,
            "spatialReference": .object(["wkid": .number(4326), "latestWkid": .number(4326)]),
            "fields": layer.json["fields"] ?? .array([]),
            "exceededTransferLimit": .bool(offset + page.count < matches.count),
            "features": .array(page.map { i in
                let feature = features[i]
                let attributes = fields.contains("*") ? feature.attributes : feature.attributes.filter { fields.contains($0.key) || $0.key == "OBJECTID" }
                var out: [String: JSONValue] = ["attributes": .object(attributes)]
                if returnGeometry { out["geometry"] = feature.geometry }
                return .object(out)
            }),
        ])
    }

    static func envelope(_ text: String) -> GeoExtent? {
        if text.hasPrefix("{"), let json = try? JSONValue(parsing: Data(text.utf8)),
           let xmin = json["xmin"]?.double, let ymin = json["ymin"]?.double, let xmax = json["xmax"]?.double, let ymax = json["ymax"]?.double {
            return GeoExtent(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
        }
        let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4 else { return nil }
        return GeoExtent(xmin: parts[0], ymin: parts[1], xmax: parts[2], ymax: parts[3])
    }

    /// `1=1`, or comparisons joined by `AND`: `field = 'text'`, `field >= 10`, `field IN ('a', 'b')`,
    /// … (what the sample needs; anything else is an invalid query, as a real service would say of
    /// bad SQL). Text compares as SQL Server's default collation does: ignoring case.
    static func conditions(_ clause: String) -> [([String: JSONValue]) -> Bool]? {
        let trimmed = clause.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.replacingOccurrences(of: " ", with: "") == "1=1" { return [] }
        var result: [([String: JSONValue]) -> Bool] = []
        for term in trimmed.components(separatedBy: " AND ") + [] where !term.isEmpty {
            if let list = term.firstMatch(of: /^\s*(\w+)\s+(?i:IN)\s*\((.*)\)\s*$/) {
                let field = String(list.1)
                let members = Set(list.2.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.map { member in
                    member.hasPrefix("'") && member.hasSuffix("'") && member.count >= 2 ? String(member.dropFirst().dropLast()).lowercased() : member.lowercased()
                })
                result.append { attributes in
                    switch attributes[field] {
                    case .string(let text)?: members.contains(text.lowercased())
                    case .number(let number)?: members.contains(String(Int64(exactly: number).map(String.init) ?? String(number)))
                    default: false
                    }
                }
                continue
            }
            guard let match = term.firstMatch(of: /^\s*(\w+)\s*(<>|>=|<=|=|>|<)\s*(.+?)\s*$/) else { return nil }
            let field = String(match.1), op = String(match.2), raw = String(match.3)
            let literal: JSONValue
            if raw.hasPrefix("'"), raw.hasSuffix("'"), raw.count >= 2 {
                literal = .string(String(raw.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
            } else if let number = Double(raw) {
                literal = .number(number)
            } else {
                return nil
            }
            result.append { attributes in
                guard let value = attributes[field] else { return false }
                let order: ComparisonResult
                switch (value, literal) {
                case (.number(let a), .number(let b)): order = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
                case (.string(let a), .string(let b)): order = a.compare(b)
                default: return false
                }
                switch op {
                case "=": return order == .orderedSame
                case "<>": return order != .orderedSame
                case ">": return order == .orderedDescending
                case "<": return order == .orderedAscending
                case ">=": return order != .orderedAscending
                default: return order != .orderedDescending
                }
            }
        }
        return result
    }

    // MARK: Layer descriptions

    private static func field(_ name: String, _ type: String, alias: String? = nil, more: [String: JSONValue] = [:]) -> JSONValue {
        .object(["name": .string(name), "type": .string("esriFieldType" + type), "alias": .string(alias ?? name)].merging(more) { _, new in new })
    }

    private static func color(_ r: Int, _ g: Int, _ b: Int, _ a: Int = 255) -> JSONValue {
        .array([r, g, b, a].map { .number(Double($0)) })
    }

    private static func marker(_ color: JSONValue, size: Double, style: String = "esriSMSCircle") -> JSONValue {
        .object(["type": .string("esriSMS"), "style": .string(style), "color": color, "size": .number(size),
                 "outline": .object(["color": Self.color(255, 255, 255), "width": .number(0.75)])])
    }

    private static func fill(_ color: JSONValue) -> JSONValue {
        .object(["type": .string("esriSFS"), "style": .string("esriSFSSolid"), "color": color,
                 "outline": .object(["type": .string("esriSLS"), "style": .string("esriSLSSolid"), "color": Self.color(110, 110, 110), "width": .number(0.7)])])
    }

    private static func common(name: String, geometryType: String, fields: [JSONValue], renderer: JSONValue, labeling: JSONValue?,
                               maxRecordCount: Int, minScale: Double) -> JSONValue {
        var drawing: [String: JSONValue] = ["renderer": renderer, "transparency": .number(0)]
        if let labeling { drawing["labelingInfo"] = labeling }
        return .object([
            "currentVersion": .number(11.3), "id": .number(0), "name": .string(name), "type": .string("Feature Layer"),
            "geometryType": .string(geometryType), "objectIdField": .string("OBJECTID"), "globalIdField": .string("GlobalID"),
            "hasAttachments": .bool(true), "displayField": .string(name == "Places" ? "name" : "NAME"),
            "fields": .array(fields), "drawingInfo": .object(drawing), "minScale": .number(minScale), "maxScale": .number(0),
            "maxRecordCount": .number(Double(maxRecordCount)), "supportsPagination": .bool(true),
            "advancedQueryCapabilities": .object(["supportsPagination": .bool(true), "supportsQueryWithResultType": .bool(true)]),
            "capabilities": .string("Create,Delete,Query,Update,Editing,Sync"), "copyrightText": .string(MapbookAssets.attribution),
            "extent": .object(["xmin": .number(SampleCatalog.extent.xmin), "ymin": .number(SampleCatalog.extent.ymin),
                               "xmax": .number(SampleCatalog.extent.xmax), "ymax": .number(SampleCatalog.extent.ymax),
                               "spatialReference": .object(["wkid": .number(4326)])]),
        ])
    }

    static let placesJSON: JSONValue = common(
        name: "Places", geometryType: "esriGeometryPoint",
        fields: [field("OBJECTID", "OID"), field("GlobalID", "GlobalID"),
                 field("name", "String", alias: "Name", more: ["nullable": .bool(false), "length": .number(120)]),
                 field("population", "Integer", alias: "Population",
                       more: ["domain": .object(["type": .string("range"), "name": .string("Population"), "range": .array([.number(0), .number(10_000_000)])])]),
                 field("county", "String", alias: "County", more: ["length": .number(60)]),
                 field("size_class", "String", alias: "Size", more: ["length": .number(16), "domain": .object([
                     "type": .string("codedValue"), "name": .string("Size class"),
                     "codedValues": .array(["City", "Town", "Village"].map { .object(["code": .string($0), "name": .string($0)]) }),
                 ])])],
        renderer: .object([
            "type": .string("uniqueValue"), "field1": .string("size_class"), "fieldDelimiter": .string(","),
            "defaultSymbol": marker(color(150, 150, 150), size: 4), "defaultLabel": .string("Other"),
            "uniqueValueInfos": .array([
                .object(["value": .string("City"), "label": .string("City (10,000 or more)"), "symbol": marker(color(200, 30, 40), size: 10, style: "esriSMSSquare")]),
                .object(["value": .string("Town"), "label": .string("Town (2,000 to 10,000)"), "symbol": marker(color(240, 140, 20), size: 7)]),
                .object(["value": .string("Village"), "label": .string("Village"), "symbol": marker(color(120, 80, 160), size: 5)]),
            ]),
        ]),
        labeling: .array([.object([
            "labelExpressionInfo": .object(["expression": .string("$feature.name")]), "labelPlacement": .string("esriServerPointLabelPlacementAboveRight"),
            "symbol": .object(["type": .string("esriTS"), "color": color(60, 20, 20)]), "minScale": .number(1_200_000), "maxScale": .number(0),
        ])]),
        maxRecordCount: placesPageSize, minScale: 5_000_000)

    static let countiesJSON: JSONValue = {
        var json = common(
            name: "Counties", geometryType: "esriGeometryPolygon",
            fields: [field("OBJECTID", "OID"), field("GlobalID", "GlobalID"), field("NAME", "String", alias: "County"), field("area_km2", "Double", alias: "Area (km²)")],
            renderer: .object([
                "type": .string("classBreaks"), "field": .string("area_km2"), "minValue": .number(0),
                "classBreakInfos": .array([
                    .object(["classMaxValue": .number(2_000), "label": .string("Under 2,000 km²"), "symbol": fill(color(199, 233, 192, 140))]),
                    .object(["classMaxValue": .number(6_000), "label": .string("2,000 to 6,000 km²"), "symbol": fill(color(116, 196, 118, 140))]),
                    .object(["classMaxValue": .number(20_000), "label": .string("6,000 km² or more"), "symbol": fill(color(35, 139, 69, 140))]),
                ]),
            ]),
            labeling: .array([.object([
                "labelExpression": .string("[NAME]"), "labelPlacement": .string("esriServerPolygonPlacementAlwaysHorizontal"),
                "symbol": .object(["type": .string("esriTS"), "color": color(40, 80, 40)]), "minScale": .number(0), "maxScale": .number(0),
            ])]),
            maxRecordCount: 1000, minScale: 0)
        if case .object(var members) = json { members["id"] = .number(1); json = .object(members) }
        return json
    }()
}
