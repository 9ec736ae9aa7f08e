import Foundation
import HTTP
import LoopbackHTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
@testable import ArcGISPortal
import ArcGISModel

/// A signed-in token goes to a server on another origin only when the portal vouches for it: the
/// portal lists it among its federated servers (`portals/{id}/servers`) and the server's own
/// `rest/info` agrees. A server's own claim of federation gets it nothing (docs/auth.md).
@Suite("Tokens and federated servers")
struct FederationTests {
    /// A server with one feature layer that says who owns it, and answers 499 to anyone without a token.
    static func server(owner: String) throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/server/rest/info": .json(#"{"currentVersion":11.3,"owningSystemUrl":"\#(owner)"}"#)
            default:
                request.headers["x-esri-authorization"] == nil ? .json(#"{"error":{"code":499,"message":"Token Required","details":[]}}"#)
                    : .json(#"{"name":"Trails","geometryType":"esriGeometryPolyline","fields":[]}"#)
            }
        }
    }

    func layer(on server: LoopbackServer) -> WebMapLayer {
        WebMapLayer(title: "Trails", layerType: "ArcGISFeatureLayer", url: server.baseURL.absoluteString + "/server/rest/services/Trails/FeatureServer/0")
    }

    private func layerRequests(_ server: LoopbackServer) -> [LoopbackRequest] { server.requests.filter { $0.path.hasSuffix("/FeatureServer/0") } }

    @Test func onlyAServerThePortalListsAndThatAgreesGetsTheToken() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let portalAddress = portal.baseURL.absoluteString + "/"
        // Each server answers its rest/info naming the portal, except `denies`.
        let listed = try Self.server(owner: portalAddress)
        let claimer = try Self.server(owner: portalAddress)
        let denies = try Self.server(owner: "https://elsewhere.example.com/portal")
        defer { listed.stop(); claimer.stop(); denies.stop() }
        portal.updateFaults {
            $0.federatedServers = [listed.baseURL.absoluteString + "/server", denies.baseURL.absoluteString + "/server/"]
        }
        let client = PortalClient(portal: portal.baseURL, token: SampleCatalog.validToken)
        _ = try await client.featureLayer(layer(on: listed))
        _ = try await client.featureLayer(layer(on: listed))
        #expect(layerRequests(listed).count == 2 && layerRequests(listed).allSatisfy { $0.headers["x-esri-authorization"] == "Bearer \(SampleCatalog.validToken)" })

        // The server claims the portal owns it, but the portal does not list it: no token, and a
        // sentence that names the host and says why.
        for server in [claimer, denies] {
            let error = await #expect(throws: PortalError.self) { try await client.featureLayer(layer(on: server)) }
            #expect(layerRequests(server).allSatisfy { $0.headers["x-esri-authorization"] == nil })
            #expect(error?.userSentence.contains("127.0.0.1") == true && error?.userSentence.contains("does not vouch") == true,
                    "\(error?.userSentence ?? "")")
        }
        // rest/info is asked once per server the portal lists, never with the token; the portal's
        // list once per session, with it.
        #expect(listed.requests.filter { $0.path == "/server/rest/info" }.count == 1)
        #expect(claimer.requests.filter { $0.path.hasSuffix("/rest/info") }.isEmpty)
        #expect((listed.requests + denies.requests).filter { $0.path.hasSuffix("/rest/info") }.allSatisfy { $0.headers["x-esri-authorization"] == nil })
        let lists = portal.requests.filter { $0.path.hasSuffix("/servers") }
        #expect(lists.count == 1 && lists[0].path == "/sharing/rest/portals/mApBoOkSaMpLe0001/servers")
    }

    @Test func signedOutNothingIsAsked() async throws {
        let portal = try SampleFixture.start()
        let other = try Self.server(owner: portal.baseURL.absoluteString)
        defer { portal.stop(); other.stop() }
        _ = try? await PortalClient(portal: portal.baseURL).featureLayer(layer(on: other))
        #expect(other.requests.count == 1 && !other.requests.contains { $0.path.hasSuffix("/rest/info") })
        #expect(!portal.requests.contains { $0.path.hasSuffix("/servers") })
    }

    /// ArcGIS Online: its own services over https, nothing else, whatever a server says.
    @Test func fromArcGISOnlineOnlyItsOwnHostsOverHTTPS() {
        let client = PortalClient(portal: URL(string: "https://www.arcgis.com")!, token: "tok")
        func carries(_ address: String) -> Bool {
            client.request(base: URL(string: address)!, [], query: []).headers.contains { $0.0 == "X-Esri-Authorization" }
        }
        #expect(carries("https://services.arcgis.com/abc/arcgis/rest/services/X/FeatureServer/0"))
        #expect(carries("https://geocode.arcgis.com/arcgis/rest/services/World/GeocodeServer"))
        #expect(!carries("http://services.arcgis.com/abc/arcgis/rest/services/X/FeatureServer/0"))
        #expect(!carries("https://arcgis.com.evil.example/arcgis/rest/services/X/FeatureServer/0"))
        #expect(!carries("https://evilarcgis.com/arcgis/rest/services/X/FeatureServer/0"))
        #expect(!carries("https://gis.city.example/server/rest/services/X/FeatureServer/0"))
    }

    @Test func serverRootsCompareAsThePortalListsThem() {
        #expect(PortalClient.serverRoot(of: URL(string: "https://GIS.example.com:443/Server/rest/services/A/FeatureServer/0")!)
            == "https://gis.example.com/server")
        #expect(PortalClient.serverRoot(of: URL(string: "https://gis.example.com/server/")!) == "https://gis.example.com/server")
        #expect(PortalClient.serverRoot(of: URL(string: "https://gis.example.com:6443/arcgis/rest/services")!) == "https://gis.example.com:6443/arcgis")
    }
}
