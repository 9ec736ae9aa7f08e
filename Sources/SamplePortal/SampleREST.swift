import Foundation
import LoopbackHTTP
import MapbookAssets
import MapbookCore
import TileFormats
import ArcGISModel
import Geometry

/// `/sharing/rest/…` as ArcGIS Online answers it: items, item data, thumbnails, related items,
/// search. Strict where the real API is: JSON only with `f=json` or `f=pjson` (an HTML page
/// otherwise), related items only with `relationshipType` and `direction`, errors as HTTP 200 with
/// an `{"error":…}` body.
struct SampleREST {
    let content: SampleContent
    let faults: SampleFaults
    let baseURL: String
    let auth: SampleAuth
    /// What package downloads held by the `hold` fault wait for (one per portal).
    let heldDownloads: LoopbackGate

    func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        let parts = request.path.dropFirst("/sharing/rest/".count).split(separator: "/").map(String.init)
        let format = request.query["f"]
        let wantsJSON = format == "json" || format == "pjson"
        func json(_ value: JSONValue) -> LoopbackResponse { Self.json(value, pretty: format == "pjson") }

        if let answer = auth.respond(request, parts: parts, faults: faults) { return answer }
        let caller = auth.caller(request, faults: faults)
        if parts == ["search"] { return wantsJSON ? json(search(request.query, signedIn: caller != .anonymous && caller != .invalid)) : Self.html }
        if parts.count >= 3, parts[0] == "content", parts[1] == "users" {
            guard case .user(let user) = caller else { return json(Self.error(caller == .invalid ? 498 : 499, caller == .invalid ? "Invalid token." : "Token Required")) }
            guard parts[2] == user else { return json(Self.error(403, "You do not have permissions to access this resource or perform this operation.")) }
            return json(userContent(user: user, folder: parts.count > 3 ? parts[3] : nil, query: request.query) ?? Self.error(400, "Folder not found."))
        }
        if parts == ["portals", "self"] {
            guard wantsJSON else { return Self.html }
            let portal = SampleGallery.portalSelf(baseURL: baseURL, enterprise: faults.enterprise)
            guard case .user(let user) = caller, case .object(var fields) = portal else {
                return caller == .invalid ? json(Self.error(498, "Invalid token.")) : json(portal)
            }
            fields["user"] = SampleAuth.communitySelf(user: user)
            return json(.object(fields))
        }
        if parts.count == 3, parts[0] == "portals", parts[2] == "servers" {
            // As ArcGIS Enterprise lists its federated servers: to a signed-in user, by the portal's id.
            guard wantsJSON else { return Self.html }
            guard case .user = caller else { return json(Self.error(caller == .invalid ? 498 : 499, caller == .invalid ? "Invalid token." : "Token Required")) }
            guard parts[1] == SampleGallery.portalID else { return json(Self.error(400, "Portal not found.")) }
            let servers = faults.federatedServers.enumerated().map { index, url -> JSONValue in
                .object(["id": .string("server\(index)"), "name": .string(URL(string: url)?.host ?? url), "url": .string(url),
                         "adminUrl": .string(url), "serverRole": .string("FEDERATED_SERVER"), "serverType": .string("ArcGIS"),
                         "isHosted": .bool(false)])
            }
            return json(.object(["servers": .array(servers)]))
        }
        if parts == ["community", "self"] {
            switch caller {
            case .user(let user): return json(SampleAuth.communitySelf(user: user))
            case .anonymous: return json(Self.error(499, "Token Required"))
            case .invalid: return json(Self.error(498, "Invalid token."))
            }
        }
        if parts == ["community", "groups"] { return wantsJSON ? json(SampleGallery.groups(request.query)) : Self.html }
        guard parts.count >= 3, parts[0] == "content", parts[1] == "items" else { return .text("Not Found", status: 404) }
        let id = parts[2]
        if id == SampleCatalog.protectedID {
            switch caller {
            case .anonymous: return json(Self.error(499, "Token Required"))
            case .user: break
            case .invalid: return json(Self.error(498, "Invalid token."))
            }
        }
        guard let item = item(id) else {
            // Package bytes are asked for without f=json; the error still comes as JSON.
            return wantsJSON || parts.count > 3 ? json(Self.notFound) : Self.html
        }
        switch Array(parts.dropFirst(3)) {
        case []:
            return wantsJSON ? json(item) : Self.html
        case ["data"]:
            if let area = SampleCatalog.area(packageID: id) { return packageData(area, id: id, request) }
            if id == SampleMobilePackage.id {
                return fileData(mobilePackageBytes(), named: SampleMobilePackage.fileName,
                                modified: Date(timeIntervalSince1970: Double(mobilePackageModified) / 1000), request)
            }
            // A CSV item's data is the file, whatever `f` says.
            if id == SampleServicesMap.csvID {
                return LoopbackResponse(status: 200, headers: [("Content-Type", "text/csv")], body: Data(SampleServicesMap.csv.utf8))
            }
            guard wantsJSON else { return Self.html }
            if id == SampleCatalog.webMapID || id == SampleCatalog.protectedID { return json(webMapData()) }
            if id == SampleServicesMap.id { return json(SampleServicesMap.data(baseURL: baseURL)) }
            if id == SampleUTMMap.id { return json(SampleUTMMap.data(baseURL: baseURL)) }
            if let basemap = SampleGallery.item(id) { return json(SampleGallery.data(of: basemap, baseURL: baseURL)) }
            if let area = SampleCatalog.area(id: id) { return json(.object(["packages": .array(Self.packageIDs(area).map { .string($0) })])) }
            return json(Self.notFound)
        case ["relatedItems"]:
            guard wantsJSON else { return Self.html }
            guard request.query["direction"] == "forward" || request.query["direction"] == "reverse" else {
                return json(Self.error(400, "Invalid or missing input parameters.", details: ["direction"]))
            }
            let forward = request.query["direction"] == "forward"
            let related: [JSONValue]
            switch (request.query["relationshipType"], forward) {
            case ("Map2Area"?, true):
                related = [SampleCatalog.webMapID, SampleCatalog.protectedID, SampleServicesMap.id].contains(id) ? SampleCatalog.areas.map(areaItem) : []
            case ("Map2Area"?, false): related = SampleCatalog.area(id: id) != nil ? [webMapItem()] : []
            case ("Area2Package"?, true):
                // A portal that answers one area's package list badly (seen in the wild: an object or null).
                if faults.malformedAreas.contains(id) { return json(.object(["total": .number(1), "relatedItems": .null])) }
                related = SampleCatalog.area(id: id).map { area in Self.packageIDs(area).compactMap { packageItem(area, id: $0) } } ?? []
            case ("Area2Package"?, false): related = SampleCatalog.area(packageID: id).map { [areaItem($0)] } ?? []
            default: return json(Self.error(400, "Invalid or missing input parameters.", details: ["relationshipType"]))
            }
            return json(.object(["total": .number(Double(related.count)), "relatedItems": .array(related)]))
        case let rest where rest.first == "info" && rest.count > 1:
            guard item["thumbnail"]?.string == rest.dropFirst().joined(separator: "/"),
                  let png = content.thumbnails[[SampleCatalog.protectedID, SampleServicesMap.id, SampleUTMMap.id, SampleMobilePackage.id].contains(id) ? SampleCatalog.webMapID : id] else {
                return json(Self.notFound)
            }
            return LoopbackResponse(status: 200, headers: [("Content-Type", "image/png")], body: png)
        default:
            return json(Self.notFound)
        }
    }

    // MARK: Items

    func item(_ id: String) -> JSONValue? {
        if id == SampleCatalog.webMapID { return webMapItem() }
        if id == SampleCatalog.protectedID {
            var item = webMapItem(id: id, title: "Explore Maine (staff)")
            item["access"] = .string("org")
            item["owner"] = .string(SampleAuth.username)
            return .object(item)
        }
        for (mapID, title, snippet) in [(SampleServicesMap.id, SampleServicesMap.title, SampleServicesMap.snippet),
                                        (SampleUTMMap.id, SampleUTMMap.title, SampleUTMMap.snippet)] where id == mapID {
            var item = webMapItem(id: id, title: title)
            item["snippet"] = .string(snippet)
            return .object(item)
        }
        if id == SampleServicesMap.csvID {
            return .object(Self.itemFields(id: id, title: SampleServicesMap.csvTitle, type: "CSV", typeKeywords: ["CSV", "Data"],
                                           snippet: "Ferry terminals on Maine's coast.", description: nil, extent: SampleCatalog.extent,
                                           thumbnail: nil, modified: SampleCatalog.modified, size: Int64(SampleServicesMap.csv.utf8.count)))
        }
        if let area = SampleCatalog.area(id: id) { return areaItem(area) }
        if id == SampleMobilePackage.id { return mobilePackageItem() }
        if let area = SampleCatalog.area(packageID: id) { return packageItem(area, id: id) }
        if let basemap = SampleGallery.item(id) { return basemapItem(basemap) }
        return nil
    }

    private func webMapItem() -> JSONValue { .object(webMapItem(id: SampleCatalog.webMapID, title: SampleCatalog.webMapTitle)) }

    /// A gallery basemap: a web map without map areas, shared to the gallery's group.
    private func basemapItem(_ basemap: SampleGallery.Item) -> JSONValue {
        let fields = Self.itemFields(id: basemap.id, title: basemap.title, type: "Web Map",
                                     typeKeywords: ["ArcGIS Online", "Basemap", "Map", "Online Map", "Web Map"],
                                     snippet: basemap.snippet, description: nil, extent: SampleCatalog.extent,
                                     thumbnail: "thumbnail/thumbnail.png", modified: SampleCatalog.modified, size: 1_024)
        return .object(fields)
    }

    private func webMapItem(id: String, title: String) -> [String: JSONValue] {
        Self.itemFields(id: id, title: title, type: "Web Map",
                        typeKeywords: ["ArcGIS Online", "Explorer Web Map", "Map", "Offline", "Online Map", "Web Map"],
                        snippet: SampleCatalog.webMapSnippet,
                        description: "<p>Maine's parks, coast and towns. Download an area and take it <b>offline</b>.</p>",
                        extent: SampleCatalog.extent, thumbnail: "thumbnail/thumbnail.png",
                        modified: SampleCatalog.modified, size: 4_218)
    }

    private func areaItem(_ area: SampleArea) -> JSONValue {
        var fields = Self.itemFields(id: area.id, title: area.title, type: "Map Area", typeKeywords: ["Map", "Map Area"],
                                     snippet: area.snippet, description: nil, extent: area.extent,
                                     thumbnail: "thumbnail/ago_downloaded.png", modified: SampleCatalog.modified, size: -1)
        fields["properties"] = .object(["status": .string(faults.areaStatus[area.id] ?? "complete")])
        return .object(fields)
    }

    /// An area's packages: its basemap's, then its features' when it has them.
    static func packageIDs(_ area: SampleArea) -> [String] { [area.packageID] + (area.geodatabaseID.map { [$0] } ?? []) }

    private func packageItem(_ area: SampleArea, id: String) -> JSONValue? {
        let updates = faults.updates[area.packageID] ?? 0
        if id == area.geodatabaseID {
            // As ArcGIS lists a preplanned area's replica: named for it, with the service in its keywords.
            let service = baseURL + SampleFeatureServer.path
            var fields = Self.itemFields(id: id, title: "\(area.title) features", type: "SQLite Geodatabase",
                                         typeKeywords: ["Data", "SQLite Geodatabase", "Replica", "Syncable", "MapAreaPackage", "ReferenceURL#" + service],
                                         snippet: nil, description: nil, extent: area.extent, thumbnail: nil,
                                         modified: SampleCatalog.modified + 200_000 + Int64(updates) * 86_400_000,
                                         size: Int64(geodatabaseBytes(area).count))
            fields["name"] = .string("replica_\(SampleAreaGeodatabase.replicaID.dropFirst().dropLast().lowercased()).geodatabase")
            return .object(fields)
        }
        guard id == area.packageID else { return nil }
        var fields = Self.itemFields(id: area.packageID, title: "\(area.title) basemap", type: "Vector Tile Package",
                                     typeKeywords: ["Vector Tile Package", "vtpk", "Map Area Package"],
                                     snippet: nil, description: nil, extent: area.extent, thumbnail: nil,
                                     modified: SampleCatalog.modified + 200_000 + Int64(updates) * 86_400_000,
                                     size: Int64(packageBytes(area).count))
        fields["name"] = .string(area.packageName)
        return .object(fields)
    }

    /// The fields every ArcGIS item has, dates in epoch milliseconds, extent as two corners.
    static func itemFields(id: String, title: String, type: String, typeKeywords: [String], snippet: String?,
                           description: String?, extent: GeoExtent, thumbnail: String?, modified: Int64,
                           size: Int64) -> [String: JSONValue] {
        [
            "id": .string(id), "owner": .string(SampleCatalog.owner), "orgId": .string("mApBoOkSaMpLe0001"),
            "created": .number(Double(SampleCatalog.created)), "modified": .number(Double(modified)),
            "title": .string(title), "type": .string(type), "typeKeywords": .array(typeKeywords.map { .string($0) }),
            "snippet": snippet.map { .string($0) } ?? .null, "description": description.map { .string($0) } ?? .null,
            "tags": .array([.string("Maine"), .string("offline")]),
            "thumbnail": thumbnail.map { .string($0) } ?? .null,
            "extent": .array([.array([.number(extent.xmin), .number(extent.ymin)]),
                              .array([.number(extent.xmax), .number(extent.ymax)])]),
            "spatialReference": .string("102100"), "accessInformation": .string(MapbookAssets.attribution),
            "licenseInfo": .null, "culture": .string("en-us"), "properties": .null, "url": .null,
            "access": .string("public"), "size": .number(Double(size)), "numViews": .number(52_311),
        ]
    }

    // MARK: Data

    func webMapData() -> JSONValue { Self.exploreMaineData(baseURL: baseURL) }

    static let webMercator: JSONValue = .object(["wkid": .number(102100), "latestWkid": .number(3857)])

    /// An extent in degrees as a web map's Web Mercator envelope.
    static func envelope(_ e: GeoExtent) -> JSONValue {
        let sw = WebMercator.projected(longitude: e.xmin, latitude: e.ymin)
        let ne = WebMercator.projected(longitude: e.xmax, latitude: e.ymax)
        return .object(["xmin": .number(sw.x), "ymin": .number(sw.y), "xmax": .number(ne.x), "ymax": .number(ne.y),
                        "spatialReference": webMercator])
    }

    static func exploreMaineData(baseURL: String) -> JSONValue {
        let service = baseURL + SampleCatalog.basemapServicePath
        let features = baseURL + SampleFeatureServer.path
        return .object([
            "version": .string("2.31"),
            "authoringApp": .string("mapbook sample portal"),
            "spatialReference": webMercator,
            "operationalLayers": .array([
                .object(["id": .string("explore-maine-counties"), "layerType": .string("ArcGISFeatureLayer"), "title": .string("Counties"),
                         "url": .string(features + "/1"), "visibility": .bool(true), "opacity": .number(0.8)]),
                .object(["id": .string("explore-maine-places"), "layerType": .string("ArcGISFeatureLayer"), "title": .string("Places"),
                         "url": .string(features + "/0"), "visibility": .bool(true), "opacity": .number(1),
                         "popupInfo": Self.placesPopup, "formInfo": Self.placesForm]),
            ]),
            "baseMap": .object([
                "title": .string("Explore Maine Basemap"),
                "baseMapLayers": .array([.object([
                    "id": .string("explore-maine-basemap"), "layerType": .string("VectorTileLayer"),
                    "title": .string("Explore Maine Basemap"), "styleUrl": .string(service + "/resources/styles/root.json"),
                    "visibility": .bool(true), "opacity": .number(1),
                ])]),
            ]),
            "initialState": .object(["viewpoint": .object(["targetGeometry": envelope(SampleCatalog.extent)])]),
            "bookmarks": .array(SampleCatalog.bookmarks.map { .object(["name": .string($0.name), "extent": envelope($0.extent)]) }),
            "applicationProperties": .object(["offline": .object([
                "offlinebasemap": .object(["referenceBasemapName": .string("Explore Maine Basemap")]),
                "editableLayers": .object(["download": .string("none")]),
                "readonlyLayers": .object(["downloadAttachments": .bool(false)]),
            ])]),
        ])
    }

    /// Places' popup: the town's name as the title, its population with separators, its county.
    static let placesPopup: JSONValue = .object([
        "title": .string("{name}"),
        "fieldInfos": .array([
            .object(["fieldName": .string("name"), "label": .string("Name"), "visible": .bool(true)]),
            .object(["fieldName": .string("population"), "label": .string("Population"), "visible": .bool(true),
                     "format": .object(["places": .number(0), "digitSeparator": .bool(true)])]),
            .object(["fieldName": .string("county"), "label": .string("County"), "visible": .bool(true)]),
            .object(["fieldName": .string("OBJECTID"), "label": .string("Object id"), "visible": .bool(false)]),
        ]),
        "description": .string("<p>{name} is a {size_class} in <b>{county} County</b>, Maine.</p>"),
    ])

    /// Places' Field Maps form: the name and size first, the census figures in a group, the county
    /// shown by an Arcade expression (which mapbook says it does not evaluate).
    static let placesForm: JSONValue = .object([
        "title": .string("Place"),
        "formElements": .array([
            .object(["type": .string("field"), "fieldName": .string("name"), "label": .string("Place name"), "hint": .string("As the sign reads")]),
            .object(["type": .string("field"), "fieldName": .string("size_class"), "label": .string("Size")]),
            .object(["type": .string("group"), "label": .string("Census"), "formElements": .array([
                .object(["type": .string("field"), "fieldName": .string("population"), "label": .string("Population")]),
                .object(["type": .string("field"), "fieldName": .string("county"), "label": .string("County"),
                         "visibilityExpression": .string("expr/not-a-village")]),
            ])]),
        ]),
        "expressionInfos": .array([.object(["name": .string("expr/not-a-village"), "returnType": .string("boolean"),
                                            "expression": .string("$feature.size_class != 'Village'")])]),
    ])

    /// The package as it is now: each update appends a zip comment, so the bytes and size change
    /// and the file stays a valid package.
    func packageBytes(_ area: SampleArea) -> Data {
        Self.updated(content.packages[area.packageID]?.data ?? Data(), updates: faults.updates[area.packageID] ?? 0)
    }

    /// A zip's bytes after `updates` updates: each sets a zip comment, so the bytes and size change
    /// and the file stays a valid package.
    static func updated(_ zip: Data, updates: Int) -> Data {
        guard updates > 0, zip.count >= 22 else { return zip }
        let comment = Data("mapbook sample portal: update \(updates)".utf8)
        var data = zip
        data.replaceSubrange((data.count - 2)..<data.count, with: [UInt8(comment.count & 0xFF), UInt8(comment.count >> 8)])
        data.append(comment)
        return data
    }

    /// The area's geodatabase package as it is now: each update a new server generation.
    func geodatabaseBytes(_ area: SampleArea) -> Data {
        content.geodatabase(for: area, baseURL: baseURL, generation: 1000 + Int64(faults.updates[area.packageID] ?? 0))
    }

    private func packageData(_ area: SampleArea, id: String, _ request: LoopbackRequest) -> LoopbackResponse {
        let isGeodatabase = id == area.geodatabaseID
        let updates = faults.updates[area.packageID] ?? 0
        let modified = Date(timeIntervalSince1970: Double(SampleCatalog.modified + 200_000) / 1000 + Double(updates) * 86_400)
        return fileData(isGeodatabase ? geodatabaseBytes(area) : packageBytes(area), named: isGeodatabase ? "replica.geodatabase" : area.packageName,
                        modified: modified, request)
    }

    /// A file item's bytes as the portal sends them (ranges, validators), with the download faults applied.
    func fileData(_ bytes: Data, named name: String, modified: Date, _ request: LoopbackRequest) -> LoopbackResponse {
        var data = bytes
        let etag = SampleContent.etag(of: data)
        if faults.corrupt {
            for i in stride(from: 1000, to: data.count, by: 4096) { data[i] ^= 0x5A }
        }
        var ranged = request
        if faults.ignoreRange { ranged.headers["range"] = nil }
        var response = LoopbackResponse.file(data, for: ranged, etag: etag, lastModified: modified)
        response.headers.append(("Content-Disposition", "attachment; filename=\"\(name)\""))
        response.delivery.bytesPerSecond = faults.bytesPerSecond
        response.delivery.closeAfterBodyBytes = faults.dropAfterBytes
        response.delivery.stallAfterBodyBytes = faults.stallAfterBytes
        response.delivery.stallDuration = .seconds(faults.stallSeconds)
        // Held at that offset of the file, whatever the range asked: a retried request is held there
        // too, so no download ends before the gate opens.
        let start = ranged.headers["range"].flatMap { $0.hasPrefix("bytes=") ? Int($0.dropFirst(6).prefix { $0.isNumber }) : nil } ?? 0
        response.delivery.holdAfterBodyBytes = faults.holdAfterBytes.map { (max($0 - start, 0), heldDownloads) }
        if faults.wrongLength { response.delivery.declaredLength = response.body.count + 1000 }
        return response
    }

    /// The mobile map package as it is now: each update a day later, with other bytes.
    func mobilePackageBytes() -> Data {
        Self.updated(content.mobilePackage(), updates: faults.updates[SampleMobilePackage.id] ?? 0)
    }

    private var mobilePackageModified: Int64 { SampleMobilePackage.modified + Int64(faults.updates[SampleMobilePackage.id] ?? 0) * 86_400_000 }

    private func mobilePackageItem() -> JSONValue {
        var fields = Self.itemFields(id: SampleMobilePackage.id, title: SampleMobilePackage.title, type: "Mobile Map Package",
                                     typeKeywords: ["Mobile Map Package", "mmpk", "ArcGIS Pro", "Offline"],
                                     snippet: SampleMobilePackage.snippet, description: "<p>Towns and counties of Maine, to take anywhere.</p>",
                                     extent: SampleCatalog.extent, thumbnail: "thumbnail/thumbnail.png", modified: mobilePackageModified,
                                     size: Int64(mobilePackageBytes().count))
        fields["name"] = .string(SampleMobilePackage.fileName)
        fields["tags"] = .array(SampleMobilePackage.tags.map { .string($0) })
        return .object(fields)
    }

    // MARK: Search

    /// `q` terms: `field:value` (title, type, owner, id, tags, group) or bare words matched against
    /// title, snippet and tags; `AND` is implied and ignored. Paged by `start` (1-based) and `num`.
    func search(_ query: [String: String], signedIn: Bool = false) -> JSONValue {
        // Grouping is all AND here: parentheses only group.
        let q = (query["q"] ?? "").replacingOccurrences(of: "(", with: " ").replacingOccurrences(of: ")", with: " ")
        let start = max(1, Int(query["start"] ?? "") ?? 1), num = min(100, max(1, Int(query["num"] ?? "") ?? 10))
        // The private web map is found only by those signed in, as an org's items are.
        let ids = [SampleCatalog.webMapID] + (signedIn ? [SampleCatalog.protectedID] : []) + SampleCatalog.areas.flatMap { [$0.id] + Self.packageIDs($0) }
            + SampleGallery.items.map(\.id) + [SampleServicesMap.id, SampleUTMMap.id, SampleServicesMap.csvID, SampleMobilePackage.id]
        let terms = Self.terms(q)
        let matches = ids.compactMap(item).filter { item in
            terms.allSatisfy { field, value in
                let haystacks: [String]
                switch field {
                case nil: haystacks = [item["title"]?.string, item["snippet"]?.string].compactMap { $0 } + (item["tags"]?.stringArray ?? [])
                case "tags"?: haystacks = item["tags"]?.stringArray ?? []
                case "group"?:
                    let id = item["id"]?.string ?? ""
                    if value == SampleAuth.groupID { return [SampleCatalog.webMapID, SampleCatalog.protectedID, SampleMobilePackage.id].contains(id) }
                    return value == SampleGallery.groupID && SampleGallery.item(id) != nil
                case let field?: haystacks = [item[field]?.string].compactMap { $0 }
                }
                return haystacks.contains { $0.localizedCaseInsensitiveContains(value) }
            }
        }
        let page = Array(matches.dropFirst(start - 1).prefix(num))
        let next = start - 1 + page.count < matches.count ? start + page.count : -1
        return .object(["query": .string(q), "total": .number(Double(matches.count)), "start": .number(Double(start)),
                        "num": .number(Double(num)), "nextStart": .number(Double(next)), "results": .array(page)])
    }

    /// `content/users/{user}[/{folder}]`: the demo user's items (the private web map at the root,
    /// Explore Maine and the mobile map package in "Field work", nothing in "Archive") and folders, a page at a time (`start`,
    /// `num`); nil for an unknown folder.
    func userContent(user: String, folder: String?, query: [String: String]) -> JSONValue? {
        let folders = SampleAuth.folders
        let ids: [String]
        switch folder {
        case nil: ids = [SampleCatalog.protectedID]
        case folders[0].id?: ids = [SampleCatalog.webMapID, SampleMobilePackage.id]
        case folders[1].id?: ids = []
        default: return nil
        }
        let all = ids.compactMap(item)
        let start = max(1, Int(query["start"] ?? "") ?? 1), num = min(100, max(1, Int(query["num"] ?? "") ?? 10))
        let items = Array(all.dropFirst(start - 1).prefix(num))
        let next = start - 1 + items.count < all.count ? start + items.count : -1
        return .object([
            "username": .string(user), "total": .number(Double(all.count)), "start": .number(Double(start)), "num": .number(Double(num)),
            "nextStart": .number(Double(next)), "items": .array(items),
            "currentFolder": folder.flatMap { id in folders.first { $0.id == id } }.map { .object(["id": .string($0.id), "title": .string($0.title)]) } ?? .null,
            "folders": .array(folders.map { .object(["id": .string($0.id), "title": .string($0.title), "username": .string(user)]) }),
        ])
    }

    static func terms(_ q: String) -> [(field: String?, value: String)] {
        var terms: [(String?, String)] = []
        var rest = Substring(q)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " }
            guard !rest.isEmpty else { break }
            var field: String?
            if let colon = rest.firstIndex(of: ":"), !rest[..<colon].contains(" "), !rest[..<colon].contains("\"") {
                field = String(rest[..<colon])
                rest = rest[rest.index(after: colon)...]
            }
            var value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let close = body.firstIndex(of: "\"") ?? body.endIndex
                value = body[..<close]
                rest = close < body.endIndex ? body[body.index(after: close)...] : ""
            } else {
                let end = rest.firstIndex(of: " ") ?? rest.endIndex
                value = rest[..<end]
                rest = rest[end...]
            }
            if field == nil, ["AND", "and"].contains(value) { continue }
            if !value.isEmpty { terms.append((field, String(value))) }
        }
        return terms
    }

    // MARK: Shapes

    static func error(_ code: Int, _ message: String, details: [String] = []) -> JSONValue {
        .object(["error": .object(["code": .number(Double(code)), "message": .string(message),
                                   "details": .array(details.map { .string($0) })])])
    }

    static let notFound: JSONValue = .object(["error": .object([
        "code": .number(400), "messageCode": .string("CONT_0001"),
        "message": .string("Item does not exist or is inaccessible."), "details": .array([]),
    ])])

    static func json(_ value: JSONValue, pretty: Bool = false) -> LoopbackResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return .json(data: (try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// Without `f=json` the real API answers with an HTML page.
    static let html = LoopbackResponse(status: 200, headers: [("Content-Type", "text/html")],
                                       body: Data("<html><body>ArcGIS REST</body></html>".utf8))
}
