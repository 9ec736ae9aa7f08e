import Foundation
import LoopbackHTTP
import MapbookCore
import Geometry

/// A GeocodeServer over the bundled Maine places and counties, at the address `portals/self`
/// advertises: `suggest`, `findAddressCandidates` and `reverseGeocode` in the World Geocoding
/// Service's shapes (WGS84 in and out), its errors as ArcGIS sends them.
struct SampleGeocoder: Sendable {
    static let path = "/arcgis/rest/services/Maine_Places/GeocodeServer"

    struct Place: Sendable {
        var name: String
        var type: String
        var point: GeoPoint
        var importance: Double
        var key: String
        var longLabel: String { "\(name), ME, USA" }
        var extent: GeoExtent {
            let half = type == "County" ? 0.3 : 0.04
            return GeoExtent(xmin: point.longitude - half, ymin: point.latitude - half, xmax: point.longitude + half, ymax: point.latitude + half)
        }
    }

    let places: [Place]

    init(basemap: SampleBasemap) {
        var places: [Place] = []
        for (index, feature) in basemap.features(of: "places").enumerated() {
            guard case .points(let points) = feature.geometry, let point = points.first, let name = feature.property("name")?.string else { continue }
            places.append(Place(name: name, type: "City", point: point, importance: feature.property("population")?.double ?? 0, key: "p\(index)"))
        }
        for (index, feature) in basemap.features(of: "counties").enumerated() {
            guard let extent = feature.geometry.extent, let name = feature.property("name")?.string else { continue }
            let centre = GeoPoint(longitude: (extent.xmin + extent.xmax) / 2, latitude: (extent.ymin + extent.ymax) / 2)
            places.append(Place(name: "\(name) County", type: "County", point: centre, importance: 1_000_000, key: "c\(index)"))
        }
        self.places = places
    }

    /// `down`: the `geocodeDown` fault.
    func respond(_ request: LoopbackRequest, down: Bool) -> LoopbackResponse {
        if down {
            return LoopbackResponse(status: 503, headers: [("Content-Type", "text/html")], body: Data("<html><body>Service Unavailable</body></html>".utf8))
        }
        guard request.query["f"] == "json" || request.query["f"] == "pjson" else { return SampleREST.html }
        let operation = request.path.dropFirst(Self.path.count).split(separator: "/").first.map(String.init)
        switch operation {
        case nil:
            return SampleREST.json(.object(["currentVersion": .number(11.3), "serviceDescription": .string("Maine's places and counties."),
                                            "capabilities": .string("Geocode,ReverseGeocode,Suggest"),
                                            "spatialReference": .object(["wkid": .number(4326), "latestWkid": .number(4326)])]))
        case "suggest":
            guard let text = request.query["text"], !text.isEmpty else { return SampleREST.json(Self.invalid("'text' parameter is required.")) }
            let limit = min(max(Int(request.query["maxSuggestions"] ?? "") ?? 5, 1), 15)
            return SampleREST.json(.object(["suggestions": .array(matches(text).prefix(limit).map { place in
                .object(["text": .string(place.longLabel), "magicKey": .string(place.key), "isCollection": .bool(false)])
            })]))
        case "findAddressCandidates":
            let found: [Place]
            if let key = request.query["magicKey"], let place = places.first(where: { $0.key == key }) {
                found = [place]
            } else if let text = request.query["SingleLine"] ?? request.query["singleLine"], !text.isEmpty {
                found = matches(String(text.split(separator: ",").first ?? ""))
            } else {
                return SampleREST.json(Self.invalid("'SingleLine' parameter is required."))
            }
            let limit = min(max(Int(request.query["maxLocations"] ?? "") ?? 10, 1), 50)
            return SampleREST.json(.object([
                "spatialReference": .object(["wkid": .number(4326), "latestWkid": .number(4326)]),
                "candidates": .array(found.prefix(limit).map { place in
                    let e = place.extent
                    return .object([
                        "address": .string(place.longLabel),
                        "location": .object(["x": .number(place.point.longitude), "y": .number(place.point.latitude)]),
                        "score": .number(100),
                        "attributes": .object(["Match_addr": .string(place.longLabel), "LongLabel": .string(place.longLabel),
                                               "Type": .string(place.type), "Addr_type": .string("Locality")]),
                        "extent": .object(["xmin": .number(e.xmin), "ymin": .number(e.ymin), "xmax": .number(e.xmax), "ymax": .number(e.ymax)]),
                    ])
                }),
            ]))
        case "reverseGeocode":
            let numbers = (request.query["location"] ?? "").split(separator: ",").compactMap { Double($0) }
            guard numbers.count == 2 else { return SampleREST.json(Self.invalid("'location' parameter is invalid.")) }
            let point = GeoPoint(longitude: numbers[0], latitude: numbers[1])
            guard let nearest = places.filter({ $0.type == "City" }).min(by: { distance($0.point, point) < distance($1.point, point) }),
                  distance(nearest.point, point) < 0.3 else {
                return SampleREST.json(Self.invalid("Unable to find address for the specified location."))
            }
            return SampleREST.json(.object([
                "address": .object(["Match_addr": .string(nearest.longLabel), "LongLabel": .string(nearest.longLabel),
                                    "City": .string(nearest.name), "Region": .string("Maine"), "CountryCode": .string("USA")]),
                "location": .object(["x": .number(nearest.point.longitude), "y": .number(nearest.point.latitude),
                                     "spatialReference": .object(["wkid": .number(4326), "latestWkid": .number(4326)])]),
            ]))
        default:
            return SampleREST.json(SampleREST.error(400, "Unable to complete operation.", details: ["Operation not supported."]))
        }
    }

    /// Names that start with the text first, then names that contain it, the larger places first;
    /// case and accents ignored.
    private func matches(_ text: String) -> [Place] {
        let wanted = Self.fold(text.trimmingCharacters(in: .whitespaces))
        guard !wanted.isEmpty else { return [] }
        let folded = places.map { (place: $0, name: Self.fold($0.name)) }
        let starting = folded.filter { $0.name.hasPrefix(wanted) }.map(\.place)
        let containing = folded.filter { !$0.name.hasPrefix(wanted) && $0.name.contains(wanted) }.map(\.place)
        return starting.sorted { $0.importance > $1.importance } + containing.sorted { $0.importance > $1.importance }
    }

    private static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    private func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let dx = (a.longitude - b.longitude) * cos(a.latitude * .pi / 180), dy = a.latitude - b.latitude
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The error body the World Geocoding Service sends for a request it cannot answer.
    static func invalid(_ detail: String) -> JSONValue {
        SampleREST.error(400, "Cannot perform query. Invalid query parameters.", details: [detail])
    }
}
