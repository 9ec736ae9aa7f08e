import Foundation
import HTTP
import MapbookCore
import Geometry
import ArcGISModel

/// The ArcGIS geocode service's REST operations (`suggest`, `findAddressCandidates`,
/// `reverseGeocode`), found through the portal.
extension PortalClient {
    /// ArcGIS Online's World Geocoding Service, for a portal that names none (arcgis.com always does).
    public static let worldGeocoder = URL(string: "https://geocode.arcgis.com/arcgis/rest/services/World/GeocodeServer")!

    /// The portal's first geocoder (`portals/self` → `helperServices.geocode[]`); ArcGIS Online's World
    /// Geocoding Service when a portal on arcgis.com names none.
    public func geocodeService() async throws -> GeocodeService {
        let portal = try await getJSON(["portals", "self"], query: [], about: nil)
        for entry in portal["helperServices"]?["geocode"]?.array ?? [] {
            guard let text = entry["url"]?.string, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                continue
            }
            await learnFederation(of: url)
            return GeocodeService(url: url, name: entry["name"]?.string, suggests: entry["suggest"]?.bool ?? true)
        }
        guard host.lowercased().hasSuffix("arcgis.com") else { throw GeocodeError("\(host) offers no geocode service.") }
        return GeocodeService(url: Self.worldGeocoder, name: "ArcGIS World Geocoding Service")
    }

    /// `suggest`: up to `limit` suggestions for `text`, nearer ones first when `near` is given.
    public func suggest(_ text: String, near: GeoPoint? = nil, limit: Int = 6, using service: GeocodeService) async throws -> [GeocodeSuggestion] {
        var query = [("text", try Self.searchText(text)), ("maxSuggestions", String(min(max(limit, 1), 15)))]
        if let near { query.append(("location", Self.coordinates(near))) }
        let json = try await getJSON(service.url, ["suggest"], query: query, deadline: Self.suggestDeadline)
        return (json["suggestions"]?.array ?? []).lazy.compactMap { suggestion in
            guard let text = suggestion["text"]?.string, !text.isEmpty else { return nil }
            return GeocodeSuggestion(text: text, magicKey: suggestion["magicKey"]?.string, isCollection: suggestion["isCollection"]?.bool ?? false)
        }.prefix(max(limit, 1)).map { $0 }
    }

    /// `findAddressCandidates`: places for `text` (with a suggestion's `magicKey`, that place), best
    /// first, in WGS84. Candidates without a usable location are left out.
    public func findCandidates(_ text: String, magicKey: String? = nil, near: GeoPoint? = nil, limit: Int = 10,
                               using service: GeocodeService) async throws -> [GeocodeCandidate] {
        var query = [("SingleLine", try Self.searchText(text)), ("outFields", "Match_addr,LongLabel,Type,Addr_type"),
                     ("maxLocations", String(min(max(limit, 1), 50))), ("outSR", "4326")]
        if let magicKey { query.append(("magicKey", magicKey)) }
        if let near { query.append(("location", Self.coordinates(near))) }
        let json = try await getJSON(service.url, ["findAddressCandidates"], query: query, deadline: Self.queryDeadline)
        // outSR is a request: a geocoder may answer in another reference, which the answer names.
        let reference = SpatialReference(json: json["spatialReference"]) ?? .wgs84
        let found: [GeocodeCandidate] = (json["candidates"]?.array ?? []).lazy.compactMap { candidate in
            guard let x = candidate["location"]?["x"]?.double, let y = candidate["location"]?["y"]?.double,
                  let location = Self.geographic(x: x, y: y, in: SpatialReference(json: candidate["location"]?["spatialReference"]) ?? reference)
            else { return nil }
            let attributes = candidate["attributes"]
            let label = attributes?["LongLabel"]?.string ?? candidate["address"]?.string ?? attributes?["Match_addr"]?.string
            guard let label, !label.isEmpty else { return nil }
            let extent = Envelope(json: candidate["extent"], default: reference)?.geographic
            return GeocodeCandidate(label: label, location: location, score: candidate["score"]?.double ?? 0,
                                    extent: extent.flatMap { $0.xmin <= $0.xmax && $0.ymin <= $0.ymax ? $0 : nil },
                                    type: attributes?["Type"]?.string.flatMap { $0.isEmpty ? nil : $0 } ?? attributes?["Addr_type"]?.string)
        }.prefix(max(limit, 1)).map { $0 }
        return found
    }

    /// A point of a geocoder's answer in longitude and latitude; nil when it is off the map or in a
    /// reference mapbook cannot convert.
    static func geographic(x: Double, y: Double, in reference: SpatialReference) -> GeoPoint? {
        guard x.isFinite, y.isFinite else { return nil }
        var point = GeoPoint(longitude: x, latitude: y)
        if reference.isWebMercator {
            let converted = WebMercator.geographic(x: x, y: y)
            point = GeoPoint(longitude: converted.longitude, latitude: converted.latitude)
        } else if !reference.isWGS84 {
            return nil
        }
        return abs(point.longitude) <= 180 && abs(point.latitude) <= 90 ? point : nil
    }

    /// How long a geocoder's answer may take in all, retries included (a server that drips a byte
    /// every few seconds never trips the stall watchdog): suggestions are asked as the user types.
    static let suggestDeadline = Duration.seconds(15)
    static let queryDeadline = Duration.seconds(30)

    /// `reverseGeocode`: the address at `point`; nil where the geocoder finds none (it says so with
    /// an error body, code 400, "Unable to find address").
    public func reverseGeocode(_ point: GeoPoint, using service: GeocodeService) async throws -> ReverseGeocodeResult? {
        guard point.longitude.isFinite, point.latitude.isFinite, abs(point.longitude) <= 180, abs(point.latitude) <= 90 else {
            throw GeocodeError("The point is not on the map: longitude −180 to 180, latitude −90 to 90.")
        }
        let json: JSONValue
        do {
            json = try await getJSON(service.url, ["reverseGeocode"], query: [("location", Self.coordinates(point)), ("outSR", "4326")],
                                     deadline: Self.queryDeadline)
        } catch let error as PortalError where error.kind == .rejected(code: 400) && error.serverMessage.localizedCaseInsensitiveContains("unable to find") {
            return nil
        }
        let address = json["address"]
        guard let label = address?["LongLabel"]?.string ?? address?["Match_addr"]?.string, !label.isEmpty else { return nil }
        let location = json["location"].flatMap { l in
            l["x"]?.double.flatMap { x in
                l["y"]?.double.flatMap { Self.geographic(x: x, y: $0, in: SpatialReference(json: l["spatialReference"]) ?? .wgs84) }
            }
        }
        return ReverseGeocodeResult(label: label, city: address?["City"]?.string.flatMap { $0.isEmpty ? nil : $0 },
                                    region: address?["Region"]?.string.flatMap { $0.isEmpty ? nil : $0 },
                                    location: location)
    }

    /// What a user typed, made fit to send: control characters out, trimmed, at most 200 characters.
    static func searchText(_ text: String) throws -> String {
        let clean = TerminalText.sanitizedLine(text, maxLength: 200).trimmingCharacters(in: .whitespaces)
        guard !clean.isEmpty else { throw GeocodeError("Type a place or an address to search for.") }
        return clean
    }

    /// `x,y` in WGS84, as the geocoder takes a point.
    static func coordinates(_ point: GeoPoint) -> String {
        String(format: "%.6f,%.6f", point.longitude, point.latitude)
    }
}
