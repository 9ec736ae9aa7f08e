import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
@testable import ArcGISPortal
import ArcGISModel
import Geometry

/// Operational layers from the web map, their descriptions and `query` against the sample
/// FeatureServer: paging while the service holds features back, the cap, filters, errors.
@Suite("Feature services against the sample portal")
struct FeatureServiceTests {
    let server: SamplePortal
    let client: PortalClient

    init() throws {
        server = try SampleFixture.start()
        client = PortalClient(portal: server.baseURL, http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
    }

    func layers() async throws -> [WebMapLayer] {
        try await client.webMap(ItemID(SampleFixture.webMapID)!).keptLayers
    }

    @Test func theWebMapsOperationalLayersAreReadWithTheirPopupsBottomFirst() async throws {
        let layers = try await layers()
        #expect(layers.map(\.title) == ["Counties", "Places"])
        #expect(layers[0].opacity == 0.8 && layers[0].popupInfo == nil)
        let places = try await client.featureLayer(layers[1])
        #expect(places.info.geometryType == .point && places.info.supportsPagination && places.info.maxRecordCount == 100)
        #expect(places.info.popup?.title == "{name}")
        guard case .uniqueValue(let fields, _) = places.info.renderer.kind else { Issue.record("\(places.info.renderer.kind)"); return }
        #expect(fields == ["size_class"] && places.info.renderer.classes.count == 3)
        #expect(places.info.labeling?.parts == [.field("name")])
        let counties = try await client.featureLayer(layers[0])
        guard case .classBreaks(let field) = counties.info.renderer.kind else { Issue.record("\(counties.info.renderer.kind)"); return }
        #expect(field == "area_km2" && counties.info.labeling?.parts == [.field("NAME")])
    }

    @Test func aQueryPagesWhileTheServiceHoldsFeaturesBackAndStopsAtTheLimit() async throws {
        let places = try await client.featureLayer(try await layers()[1])
        let maine = SampleCatalog.extent
        let before = server.requests.count
        let all = try await client.queryFeatures(places, within: maine, limit: 10_000)
        let queries = server.requests.dropFirst(before).filter { $0.path.hasSuffix("/FeatureServer/0/query") }
        // 256 places in pages of 100: three requests, offsets 0, 100, 200, all fields, WGS84 both ways.
        #expect(all.features.count == 256 && !all.isCapped && all.featureJSON.count == 256)
        #expect(queries.map { $0.query["resultOffset"] } == ["0", "100", "200"])
        #expect(queries.allSatisfy { $0.query["inSR"] == "4326" && $0.query["outSR"] == "4326" && $0.query["outFields"] == "*"
            && $0.query["geometryType"] == "esriGeometryEnvelope" && $0.query["where"] == "1=1" })
        #expect(Set(all.features.compactMap { $0.attributes["OBJECTID"]?.int64 }).count == 256)
        let capped = try await client.queryFeatures(places, within: maine, limit: 150)
        #expect(capped.features.count == 150 && capped.isCapped)
        // A small envelope: only what is in it.
        let portland = GeoExtent(xmin: -70.35, ymin: 43.6, xmax: -70.2, ymax: 43.72)
        let near = try await client.queryFeatures(places, within: portland, limit: 100)
        #expect(near.features.contains { $0.attributes["name"]?.string == "Portland" } && near.features.count < 10)
    }

    @Test func theWebMapsDefinitionExpressionFiltersTheQuery() async throws {
        var layer = try await layers()[1]
        layer.layerDefinition = .object(["definitionExpression": .string("size_class = 'City'")])
        let cities = try await client.featureLayer(layer)
        let result = try await client.queryFeatures(cities, within: SampleCatalog.extent, limit: 1000)
        #expect(!result.features.isEmpty && result.features.allSatisfy { $0.attributes["size_class"]?.string == "City" })
        #expect(server.requests.last?.query["where"] == "size_class = 'City'")
    }

    @Test func aServiceThatFailsOrIsNotAFeatureLayerSaysSoInOneSentence() async throws {
        let layers = try await layers()
        try server.updateFaults { $0.featuresDown = true }
        do {
            _ = try await client.featureLayer(layers[1])
            Issue.record("a 503 gave a layer")
        } catch {
            #expect(!error.userSentence.isEmpty && !error.userSentence.contains("\n"))
        }
        try server.updateFaults { $0.featuresDown = false }
        let bad = WebMapLayer(title: "Service root", layerType: "ArcGISFeatureLayer", url: server.baseURL.absoluteString
                                + "/arcgis/rest/services/Explore_Maine_Places/FeatureServer")
        do {
            _ = try await client.featureLayer(bad)
            Issue.record("a service root read as a layer")
        } catch {
            #expect(error.userSentence == "Service root is not a layer of features with a geometry.")
        }
        let invalid = try await client.featureLayer(layers[1])
        var broken = invalid
        broken.info.definitionExpression = "name LIKE ("
        do {
            _ = try await client.queryFeatures(broken, within: SampleCatalog.extent, limit: 10)
            Issue.record("bad SQL answered")
        } catch let error as PortalError {
            #expect(error.kind == .rejected(code: 400))
        }
    }
}
