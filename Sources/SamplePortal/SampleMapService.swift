import Foundation
import LoopbackHTTP
import MapbookCore
import TileFormats
import Geometry
import ArcGISModel
import MapbookAssets

/// A dynamic MapServer, `Maine_Boundaries`: pictures drawn for any box (`export`), `identify` and
/// `legend`, over two layers made from the bundled geography — 0 "Towns" (points) and 1 "Counties"
/// (polygons). As ArcGIS Server answers: `identify` keys attributes by field alias, errors are
/// JSON error bodies with HTTP 200.
struct SampleMapService {
    static let path = "/arcgis/rest/services/Maine_Boundaries/MapServer"
    static let largestImage = 4096

    let places: SampleFeatureServer.Layer
    let counties: SampleFeatureServer.Layer

    init(_ features: SampleFeatureServer) {
        places = features.layers[0]
        counties = features.layers[1]
    }

    static let townColor: Thumbnail.Colors.RGB = (90, 40, 20)
    static let countyColor: Thumbnail.Colors.RGB = (160, 40, 60)

    func respond(_ request: LoopbackRequest) -> LoopbackResponse {
        let rest = request.path.dropFirst(Self.path.count).split(separator: "/").map(String.init)
        let format = request.query["f"]
        switch rest {
        case []:
            guard format == "json" || format == "pjson" else { return SampleREST.html }
            return SampleREST.json(Self.serviceJSON, pretty: format == "pjson")
        case ["legend"]:
            guard format == "json" || format == "pjson" else { return SampleREST.html }
            return SampleREST.json(Self.legendJSON)
        case ["export"]:
            return export(request.query)
        case ["identify"]:
            guard format == "json" || format == "pjson" else { return SampleREST.html }
            return SampleREST.json(identify(request.query))
        default:
            return .text("Not Found", status: 404)
        }
    }

    /// `layers=show:0,1` (also `hide:`, `include:`, `exclude:`); all layers when not said.
    static func shown(_ text: String?) -> Set<Int> {
        let all: Set<Int> = [0, 1]
        guard let text, let colon = text.firstIndex(of: ":") else { return all }
        let ids = Set(text[text.index(after: colon)...].split(separator: ",").compactMap { Int($0) })
        switch text[..<colon].lowercased() {
        case "show": return ids
        case "hide", "exclude": return all.subtracting(ids)
        default: return all.union(ids)
        }
    }

    private func export(_ query: [String: String]) -> LoopbackResponse {
        let box = query["bbox"]?.split(separator: ",").compactMap { Double($0) } ?? []
        let size = query["size"]?.split(separator: ",").compactMap { Int($0) } ?? []
        guard box.count == 4, box[2] > box[0], box[3] > box[1], size.count == 2,
              (1...Self.largestImage).contains(size[0]), (1...Self.largestImage).contains(size[1]) else {
            return SampleREST.json(SampleREST.error(400, "Unable to complete operation.", details: ["Invalid or missing bbox or size."]))
        }
        guard ["3857", "102100", nil].contains(query["bboxSR"]) else {
            return SampleREST.json(SampleREST.error(400, "Unable to complete operation.", details: ["This service draws in Web Mercator only."]))
        }
        guard query["f"] == "image" else {
            return SampleREST.json(SampleREST.error(400, "Unable to complete operation.", details: ["Ask with f=image."]))
        }
        let (width, height) = (size[0], size[1])
        let scale = Double(width) / (box[2] - box[0])
        var canvas = Thumbnail.Canvas(width: width, height: height, left: box[0], top: box[3], scale: scale)
        if query["transparent"] == "true" { canvas.clear() } else { canvas.fill(color: (255, 255, 255)) }
        let shown = Self.shown(query["layers"])
        let sw = WebMercator.geographic(x: box[0], y: box[1]), ne = WebMercator.geographic(x: box[2], y: box[3])
        let view = GeoExtent(xmin: sw.longitude, ymin: sw.latitude, xmax: ne.longitude, ymax: ne.latitude)
        if shown.contains(1) {
            for county in counties.features where county.extent.intersects(view) {
                for ring in county.geometry["rings"]?.array ?? [] {
                    let points = ring.array.compactMap { p -> (x: Double, y: Double)? in
                        guard let x = p[0]?.double, let y = p[1]?.double else { return nil }
                        return WebMercator.projected(longitude: x, latitude: y)
                    }
                    for (a, b) in zip(points, points.dropFirst()) { canvas.line(a, b, color: Self.countyColor) }
                }
            }
        }
        if shown.contains(0) {
            // A 3-pixel dot at 96 dpi, smaller as the pixels asked for grow.
            let radius = ((Double(query["dpi"] ?? "") ?? 96) / 96 + 0.01).clampedInt(in: 0...8, rounding: .towardZero)
            for place in places.features where place.extent.intersects(view) {
                guard let x = place.geometry["x"]?.double, let y = place.geometry["y"]?.double else { continue }
                let p = canvas.pixel(GeoPoint(longitude: x, latitude: y))
                for dx in -radius...radius { for dy in -radius...radius { canvas.set(Int(p.x) + dx, Int(p.y) + dy, Self.townColor) } }
            }
        }
        return LoopbackResponse(status: 200, headers: [("Content-Type", "image/png")], body: PNG.encode(width: width, height: height, rgba: canvas.pixels))
    }

    /// `identify`: a point (`x,y` or its JSON) in `sr` (WGS84 here), `tolerance` pixels of
    /// `imageDisplay` over `mapExtent`; towns within it, counties that cover the point.
    private func identify(_ query: [String: String]) -> JSONValue {
        let point = Self.point(query["geometry"] ?? "")
        let extent = SampleFeatureServer.envelope(query["mapExtent"] ?? "")
        let display = query["imageDisplay"]?.split(separator: ",").compactMap { Double($0) } ?? []
        guard let point, let extent, display.count >= 2, display[0] > 0, let tolerance = query["tolerance"].flatMap(Double.init),
              ["4326", nil].contains(query["sr"]) else {
            return SampleREST.error(400, "Unable to complete operation.", details: ["Invalid or missing input parameters."])
        }
        let layers = query["layers"] ?? "top"
        let asked = layers.contains(":") ? Self.shown(layers.replacingOccurrences(of: "visible:", with: "show:")
            .replacingOccurrences(of: "all:", with: "show:").replacingOccurrences(of: "top:", with: "show:")) : [0, 1]
        let returnGeometry = query["returnGeometry"] != "false"
        let sw = WebMercator.projected(longitude: extent.xmin, latitude: extent.ymin)
        let ne = WebMercator.projected(longitude: extent.xmax, latitude: extent.ymax)
        let reach = (ne.x - sw.x) / display[0] * tolerance
        let at = WebMercator.projected(longitude: point.longitude, latitude: point.latitude)
        let wgs84: JSONValue = .object(["wkid": .number(4326), "latestWkid": .number(4326)])
        var results: [JSONValue] = []
        if asked.contains(0) {
            for place in places.features {
                guard let x = place.geometry["x"]?.double, let y = place.geometry["y"]?.double else { continue }
                let p = WebMercator.projected(longitude: x, latitude: y)
                guard hypot(p.x - at.x, p.y - at.y) <= reach else { continue }
                let a = place.attributes
                var geometry = place.geometry.object ?? [:]
                geometry["spatialReference"] = wgs84
                results.append(.object([
                    "layerId": .number(0), "layerName": .string("Towns"), "displayFieldName": .string("Name"),
                    "value": a["name"] ?? .null, "geometryType": .string("esriGeometryPoint"),
                    "attributes": .object(["OBJECTID": a["OBJECTID"] ?? .null, "Name": a["name"] ?? .null,
                                           "Population": a["population"] ?? .null, "County": a["county"] ?? .null]),
                    "geometry": returnGeometry ? .object(geometry) : .null,
                ]))
            }
        }
        if asked.contains(1) {
            for county in counties.features where county.extent.contains(point) {
                guard let shape = EsriFeatures.geometry(county.geometry), shape.covers(point) else { continue }
                var geometry = county.geometry.object ?? [:]
                geometry["spatialReference"] = wgs84
                results.append(.object([
                    "layerId": .number(1), "layerName": .string("Counties"), "displayFieldName": .string("County"),
                    "value": county.attributes["NAME"] ?? .null, "geometryType": .string("esriGeometryPolygon"),
                    "attributes": .object(["OBJECTID": county.attributes["OBJECTID"] ?? .null, "County": county.attributes["NAME"] ?? .null,
                                           "Area (km²)": county.attributes["area_km2"] ?? .null]),
                    "geometry": returnGeometry ? .object(geometry) : .null,
                ]))
            }
        }
        return .object(["results": .array(results)])
    }

    /// `x,y`, or `{"x":…,"y":…}`.
    static func point(_ text: String) -> GeoPoint? {
        if let json = try? JSONValue(parsing: Data(text.utf8)), let x = json["x"]?.double, let y = json["y"]?.double {
            return GeoPoint(longitude: x, latitude: y)
        }
        let numbers = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return numbers.count == 2 ? GeoPoint(longitude: numbers[0], latitude: numbers[1]) : nil
    }

    static let serviceJSON: JSONValue = {
        let webMercator: JSONValue = .object(["wkid": .number(102100), "latestWkid": .number(3857)])
        let sw = WebMercator.projected(longitude: SampleCatalog.extent.xmin, latitude: SampleCatalog.extent.ymin)
        let ne = WebMercator.projected(longitude: SampleCatalog.extent.xmax, latitude: SampleCatalog.extent.ymax)
        let extent: JSONValue = .object(["xmin": .number(sw.x), "ymin": .number(sw.y), "xmax": .number(ne.x), "ymax": .number(ne.y),
                                         "spatialReference": webMercator])
        func layer(_ id: Int, _ name: String, _ geometry: String) -> JSONValue {
            .object(["id": .number(Double(id)), "name": .string(name), "parentLayerId": .number(-1), "defaultVisibility": .bool(true),
                     "subLayerIds": .null, "minScale": .number(0), "maxScale": .number(0), "type": .string("Feature Layer"),
                     "geometryType": .string(geometry)])
        }
        return .object([
            "currentVersion": .number(11.3), "serviceDescription": .string("Maine's towns and counties, drawn for any view."),
            "mapName": .string("Maine Boundaries"), "copyrightText": .string(MapbookAssets.attribution),
            "singleFusedMapCache": .bool(false), "capabilities": .string("Map,Query,Data"), "units": .string("esriMeters"),
            "supportedImageFormatTypes": .string("PNG32,PNG24,PNG,JPG"), "maxImageWidth": .number(Double(largestImage)),
            "maxImageHeight": .number(Double(largestImage)), "spatialReference": webMercator, "initialExtent": extent, "fullExtent": extent,
            "layers": .array([layer(0, "Towns", "esriGeometryPoint"), layer(1, "Counties", "esriGeometryPolygon")]),
            "tables": .array([]),
        ])
    }()

    static let legendJSON: JSONValue = {
        func swatch(_ c: Thumbnail.Colors.RGB) -> JSONValue {
            .string(PNG.encode(width: 20, height: 20, rgba: Array(repeating: [c.0, c.1, c.2, 255], count: 400).flatMap { $0 }).base64EncodedString())
        }
        func layer(_ id: Int, _ name: String, _ color: Thumbnail.Colors.RGB) -> JSONValue {
            .object(["layerId": .number(Double(id)), "layerName": .string(name), "layerType": .string("Feature Layer"),
                     "minScale": .number(0), "maxScale": .number(0),
                     "legend": .array([.object(["label": .string(name), "url": .string(name.lowercased()), "imageData": swatch(color),
                                                "contentType": .string("image/png"), "height": .number(20), "width": .number(20)])])])
        }
        return .object(["layers": .array([layer(0, "Towns", townColor), layer(1, "Counties", countyColor)])])
    }()
}
