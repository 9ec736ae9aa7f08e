import Foundation
import HTTP
import LoopbackHTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
@testable import ArcGISPortal
import Geometry
import ArcGISModel

/// The geocoder, found through `portals/self` and asked the World Geocoding Service's way: suggest,
/// findAddressCandidates, reverseGeocode; its faults and bad input each one sentence.
@Suite("Geocoding against the sample portal")
struct GeocodingTests {
    let server: SamplePortal
    let client: PortalClient

    init() throws {
        server = try SampleFixture.start()
        client = PortalClient(portal: server.baseURL, http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
    }

    var geocoderPath: String { "/arcgis/rest/services/Maine_Places/GeocodeServer" }

    @Test func theGeocoderIsTheOnePortalsSelfNames() async throws {
        let service = try await client.geocodeService()
        #expect(service.url.absoluteString == server.baseURL.absoluteString + geocoderPath)
        #expect(service.name == "Maine Places" && service.suggests)
        #expect(server.requests.last?.path == "/sharing/rest/portals/self" && server.requests.last?.query["f"] == "json")
        // A portal on arcgis.com that names none gets the World Geocoding Service; any other says so.
        let silent = try LoopbackServer { _ in .json(#"{"id":"x","name":"Portal"}"#) }
        defer { silent.stop() }
        do {
            _ = try await PortalClient(portal: silent.baseURL).geocodeService()
            Issue.record("a portal without a geocoder gave one")
        } catch {
            #expect(error.userSentence == "127.0.0.1 offers no geocode service.")
        }
    }

    @Test func suggestThenFindByMagicKey() async throws {
        let service = try await client.geocodeService()
        let suggestions = try await client.suggest("bar h", near: GeoPoint(longitude: -68.2, latitude: 44.4), limit: 4, using: service)
        let bar = try #require(suggestions.first)
        #expect(bar.text == "Bar Harbor, ME, USA" && bar.magicKey != nil && !bar.isCollection)
        let asked = try #require(server.requests.last)
        #expect(asked.path == geocoderPath + "/suggest")
        #expect(asked.query == ["text": "bar h", "maxSuggestions": "4", "location": "-68.200000,44.400000", "f": "json"])

        let found = try await client.findCandidates(bar.text, magicKey: bar.magicKey, using: service)
        let place = try #require(found.first)
        #expect(found.count == 1 && place.label == "Bar Harbor, ME, USA" && place.type == "City")
        #expect(abs(place.location.longitude + 68.204) < 0.01 && abs(place.location.latitude - 44.388) < 0.01)
        #expect(place.extent.map { $0.xmin < place.location.longitude && $0.xmax > place.location.longitude } == true)
        let find = try #require(server.requests.last)
        #expect(find.path == geocoderPath + "/findAddressCandidates")
        #expect(find.query["magicKey"] == bar.magicKey && find.query["outSR"] == "4326" && find.query["SingleLine"] == "Bar Harbor, ME, USA")
    }

    @Test func findingByTextRanksTheLargerPlacesFirstAndFoldsAccents() async throws {
        let service = try await client.geocodeService()
        let found = try await client.findCandidates("portland", limit: 3, using: service)
        #expect(found.map(\.label) == ["Portland, ME, USA", "South Portland, ME, USA", "South Portland Gardens, ME, USA"])
        #expect(try await client.findCandidates("Pénobscot County", using: service).first?.type == "County")
    }

    @Test func reverseGeocodingNamesTheNearestPlaceOrNone() async throws {
        let service = try await client.geocodeService()
        let here = try #require(try await client.reverseGeocode(GeoPoint(longitude: -68.21, latitude: 44.39), using: service))
        #expect(here.label == "Bar Harbor, ME, USA" && here.city == "Bar Harbor" && here.region == "Maine")
        #expect(server.requests.last?.query["location"] == "-68.210000,44.390000")
        #expect(try await client.reverseGeocode(GeoPoint(longitude: -50, latitude: 40), using: service) == nil, "mid-Atlantic: no address")
        await #expect(throws: GeocodeError.self) { _ = try await client.reverseGeocode(GeoPoint(longitude: .nan, latitude: 0), using: service) }
    }

    @Test func badInputIsOneSentenceAndNeverSentRaw() async throws {
        let service = try await client.geocodeService()
        do {
            _ = try await client.suggest("  \u{1B}[2J ", using: service)
            Issue.record("an empty query was sent")
        } catch {
            #expect(error.userSentence == "Type a place or an address to search for.")
        }
        _ = try await client.suggest(String(repeating: "x", count: 1000), using: service)
        #expect((server.requests.last?.query["text"]?.count ?? 0) <= 200, "a long query is cut")
        _ = try await client.findCandidates("\"Bar* \u{202E}Harbor\u{7}\"", using: service)
        #expect(server.requests.last?.query["SingleLine"]?.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } == true)
    }

    @Test func aGeocoderThatIsDownIsOneSentence() async throws {
        let service = try await client.geocodeService()
        server.updateFaults { $0.geocodeDown = true }
        do {
            _ = try await client.suggest("Bangor", using: service)
            Issue.record("a geocoder that is down answered")
        } catch {
            #expect(error.userSentence == "127.0.0.1 answered HTTP 503 (service unavailable).")
        }
    }

    /// A geocoder elsewhere answers candidates that cannot be placed (NaN, off the globe, no label):
    /// they are left out, the rest kept.
    @Test func candidatesThatCannotBePlacedAreLeftOut() async throws {
        let odd = try LoopbackServer { request in
            guard request.path.hasSuffix("findAddressCandidates") else { return .json("{}") }
            return .json(#"""
                {"candidates":[{"address":"Nowhere","location":{"x":"NaN","y":1},"score":90},
                               {"address":"Off the globe","location":{"x":500,"y":1},"score":90},
                               {"location":{"x":1,"y":1},"score":90},
                               {"address":"Somewhere","location":{"x":10.5,"y":53.5},"score":88,"attributes":{"Type":""},
                                "extent":{"xmin":11,"ymin":54,"xmax":10,"ymax":53}}]}
                """#)
        }
        defer { odd.stop() }
        let found = try await client.findCandidates("x", using: GeocodeService(url: odd.baseURL))
        #expect(found.map(\.label) == ["Somewhere"] && found.first?.type == nil, "an empty type is no type")
        #expect(found.first?.location == GeoPoint(longitude: 10.5, latitude: 53.5) && found.first?.score == 88)
    }

    /// A token goes to the portal and, from ArcGIS Online, to its own services; never elsewhere.
    @Test func theTokenGoesOnlyWhereItBelongs() {
        let online = PortalClient(portal: PortalClient.arcGISOnline, token: "t")
        #expect(online.request(base: PortalClient.worldGeocoder, ["suggest"], query: []).headers.contains { $0.0 == "X-Esri-Authorization" })
        #expect(!online.request(base: URL(string: "https://geocoder.example.com/GeocodeServer")!, ["suggest"], query: [])
            .headers.contains { $0.0 == "X-Esri-Authorization" })
        let enterprise = PortalClient(portal: URL(string: "https://gis.example.org/portal")!, token: "t")
        #expect(!enterprise.request(base: PortalClient.worldGeocoder, ["suggest"], query: []).headers.contains { $0.0 == "X-Esri-Authorization" })
        #expect(enterprise.request(base: URL(string: "https://gis.example.org/server/rest/services/Geo/GeocodeServer")!, ["suggest"],
                                   query: []).headers.contains { $0.0 == "X-Esri-Authorization" })
    }
}
