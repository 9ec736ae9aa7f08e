import Foundation
import HTTP
import LoopbackHTTP
import Testing
@testable import ArcGISPortal
import ArcGISModel
import Geometry

/// A layer that sends at most 2 features a query and cannot page (no `supportsPagination`): the rest
/// come by object id, so a copy holds every feature, not the first page.
@Suite struct UnpagedLayerTests {
    static let description = #"{"name":"Docks","geometryType":"esriGeometryPoint","objectIdField":"OBJECTID","maxRecordCount":2,"# +
        #""fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"name","type":"esriFieldTypeString"}]}"#

    /// `count` features with ids 1…count; the query answers as ArcGIS does without pagination.
    static func server(features count: Int) throws -> LoopbackServer {
        try LoopbackServer { request in
            guard request.path.hasSuffix("/query") else { return .json(description) }
            if request.query["returnIdsOnly"] == "true" {
                let ids = (1...count).reversed().map(String.init).joined(separator: ",")
                return .json(#"{"objectIdFieldName":"OBJECTID","objectIds":[\#(ids)]}"#)
            }
            let asked = request.query["objectIds"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? Array(1...count)
            let sent = asked.prefix(2)
            let features = sent.map { #"{"attributes":{"OBJECTID":\#($0),"name":"Dock \#($0)"},"geometry":{"x":-68.2,"y":44.4}}"# }
            return .json(#"{"features":[\#(features.joined(separator: ","))],"exceededTransferLimit":\#(asked.count > 2)}"#)
        }
    }

    private func layer(_ server: LoopbackServer) -> WebMapLayer {
        WebMapLayer(title: "Docks", layerType: "ArcGISFeatureLayer", url: server.baseURL.absoluteString + "/arcgis/rest/services/D/FeatureServer/0")
    }

    private let extent = GeoExtent(xmin: -69, ymin: 44, xmax: -68, ymax: 45)

    @Test func everyFeatureComesByObjectID() async throws {
        let server = try Self.server(features: 3)
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: HTTPClient())
        let description = try await client.featureLayer(layer(server))
        #expect(!description.info.supportsPagination && description.info.maxRecordCount == 2)
        let result = try await client.queryFeatures(description, within: extent, limit: 1000)
        #expect(result.features.count == 3 && !result.isCapped && result.leftOut == nil)
        let names = Set(result.features.compactMap { $0.attributes["name"]?.string })
        #expect(names == ["Dock 1", "Dock 2", "Dock 3"])
        // The ids asked with the same filter; then only the one not yet sent, in a batch of the page size.
        let queries = server.requests.filter { $0.path.hasSuffix("/query") }
        #expect(queries.count == 3)
        #expect(queries[1].query["returnIdsOnly"] == "true" && queries[1].query["where"] == "1=1"
                && queries[1].query["geometry"] == "-69.0,44.0,-68.0,45.0" && queries[1].query["outFields"] == nil)
        #expect(queries[2].query["objectIds"] == "3" && queries[2].query["outSR"] == "4326")
        #expect(queries.allSatisfy { $0.query["resultOffset"] == nil })
    }

    @Test func theLimitSaysHowManyWereLeftOut() async throws {
        let server = try Self.server(features: 9)
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: HTTPClient())
        let description = try await client.featureLayer(layer(server))
        let result = try await client.queryFeatures(description, within: extent, limit: 5)
        #expect(result.features.count == 5 && result.isCapped && result.leftOut == 4)
        // Batches of the layer's page size (2): the first page's 2, then 2 and 1 more by id.
        let batches = server.requests.compactMap { $0.query["objectIds"] }
        #expect(batches == ["3,4", "5"])
    }

    /// Asking by id is bounded like paging: at most `maxQueryPages` requests, then one sentence,
    /// and what was not fetched is counted as left out.
    @Test func askingByIDIsBounded() async throws {
        let server = try Self.server(features: 300)
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: HTTPClient())
        let description = try await client.featureLayer(layer(server))
        // The request bound is what is tested, not the time budget (beside the cold suite 57 requests once took 90 s).
        let result = try await client.queryFeatures(description, within: extent, limit: 1000, budget: .seconds(900))
        #expect(server.requests.filter { $0.query["objectIds"] != nil }.count == PortalClient.maxQueryPages)
        #expect(result.features.count == 2 + 2 * PortalClient.maxQueryPages && result.leftOut == 300 - result.features.count)
        #expect(result.isCapped && result.stopped?.contains("requests; stopped") == true)
    }
}
