import Foundation
import HTTP
import LoopbackHTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
@testable import ArcGISPortal

/// A signed-in token goes to a server on another origin only when that server's `rest/info`
/// names the portal as its `owningSystemUrl`; the question itself carries no token.
@Suite("Tokens and federated servers")
struct FederationTests {
    /// A server with one feature layer that says who owns it.
    static func server(owner: String) throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/server/rest/info": .json(#"{"currentVersion":11.3,"owningSystemUrl":"\#(owner)"}"#)
            default: .json(#"{"name":"Trails","geometryType":"esriGeometryPolyline","fields":[]}"#)
            }
        }
    }

    func layer(on server: LoopbackServer) -> WebMapLayer {
        WebMapLayer(title: "Trails", layerType: "ArcGISFeatureLayer", url: server.baseURL.absoluteString + "/server/rest/services/Trails/FeatureServer/0")
    }

    @Test func onlyAServerThePortalOwnsGetsTheToken() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let owned = try Self.server(owner: portal.baseURL.absoluteString + "/")
        let other = try Self.server(owner: "https://elsewhere.example.com/portal")
        defer { owned.stop(); other.stop() }
        let client = PortalClient(portal: portal.baseURL, token: "secret-token")
        _ = try await client.featureLayer(layer(on: owned))
        _ = try await client.featureLayer(layer(on: owned))
        _ = try await client.featureLayer(layer(on: other))
        let ownedLayers = owned.requests.filter { $0.path.hasSuffix("/FeatureServer/0") }
        #expect(ownedLayers.count == 2 && ownedLayers.allSatisfy { $0.headers["x-esri-authorization"] == "Bearer secret-token" })
        #expect(other.requests.filter { $0.path.hasSuffix("/FeatureServer/0") }.allSatisfy { $0.headers["x-esri-authorization"] == nil })
        // Asked once per server, never with the token.
        #expect(owned.requests.filter { $0.path == "/server/rest/info" }.count == 1)
        #expect((owned.requests + other.requests).filter { $0.path.hasSuffix("/rest/info") }.allSatisfy { $0.headers["x-esri-authorization"] == nil })
        // Signed out: nothing is asked.
        let anonymous = PortalClient(portal: portal.baseURL)
        let before = other.requests.count
        _ = try await anonymous.featureLayer(layer(on: other))
        #expect(other.requests.count == before + 1 && !other.requests.dropFirst(before).contains { $0.path.hasSuffix("/rest/info") })
    }
}
