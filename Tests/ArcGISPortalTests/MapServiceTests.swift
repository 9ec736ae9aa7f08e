import ArcGISModel
import Foundation
import Geometry
import HTTP
import LoopbackHTTP
import MapbookCore
import Testing
@testable import ArcGISPortal

/// Map and image services drawn by their server, and CSV files, as real servers answer (and fail).
@Suite("Map services and CSV files")
struct MapServiceTests {
    static let http = HTTPClient(configuration: HTTPConfiguration(retry: .none))
    static let view = ServiceView(xmin: -7_700_000, ymin: 5_400_000, xmax: -7_600_000, ymax: 5_450_000, width: 80, height: 40)
    /// A 1×1 PNG.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!

    @Test func anImageServiceIsAskedForExportImageWithoutSublayers() async throws {
        let server = try LoopbackServer { request in
            if request.path.hasSuffix("/ImageServer") { return .json(#"{"name":"Elevation","copyrightText":"USGS <b>3DEP</b>"}"#) }
            if request.path.hasSuffix("/exportImage") { return LoopbackResponse(status: 200, headers: [("Content-Type", "image/png")], body: Self.png) }
            return .text("Not Found", status: 404)
        }
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: Self.http)
        let layer = WebMapLayer(title: "Elevation", layerType: "ArcGISImageServiceLayer", url: server.baseURL.absoluteString + "/arcgis/rest/services/Elevation/ImageServer")
        let service = try await client.mapService(layer)
        #expect(service.isImageService && service.shownLayers == nil && service.copyright == "USGS <b>3DEP</b>")
        #expect(try await client.exportImage(service, view: Self.view) == Self.png)
        let asked = try #require(server.requests.first { $0.path.hasSuffix("/exportImage") })
        #expect(asked.query["bbox"] == "-7700000.0,5400000.0,-7600000.0,5450000.0" && asked.query["size"] == "80,40")
        #expect(asked.query["format"] == "png" && asked.query["f"] == "image" && asked.query["layers"] == nil && asked.query["bboxSR"] == "3857")
        #expect(try await client.identify(service, at: GeoPoint(longitude: -69, latitude: 44), view: Self.view).isEmpty,
                "an image service has no sublayers to identify")
        #expect(await client.legend(of: service) == nil)
    }

    @Test func aMapServiceShowsItsDefaultLayersWhenTheWebMapSaysNone() async throws {
        let server = try LoopbackServer { request in
            if request.path.hasSuffix("/MapServer") {
                return .json(#"{"layers":[{"id":0,"name":"Roads","defaultVisibility":true},{"id":1,"name":"Rail","defaultVisibility":false},{"id":2,"name":"Rivers"}]}"#)
            }
            if request.path.hasSuffix("/export") { return .json(#"{"error":{"code":400,"message":"Unable to complete operation.","details":["Size too large."]}}"#) }
            if request.path.hasSuffix("/identify") { return .json(#"{"results":[{"layerId":2,"layerName":"Rivers","displayFieldName":"NAME","attributes":{"NAME":"Kennebec"},"geometry":{"paths":[[[-69.8,44.3],[-69.7,44.4]]]}}]}"#) }
            return .text("Not Found", status: 404)
        }
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: Self.http)
        let url = server.baseURL.absoluteString + "/arcgis/rest/services/Transport/MapServer"
        let service = try await client.mapService(WebMapLayer(title: "Transport", layerType: "ArcGISMapServiceLayer", url: url))
        #expect(service.shownLayers == [0, 2], "the service's own defaults")
        #expect(Dictionary(uniqueKeysWithValues: PortalClient.exportQuery(service, view: Self.view))["layers"] == "show:0,2")
        await #expect(throws: PortalError.self) { try await client.exportImage(service, view: Self.view) }
        do {
            _ = try await client.exportImage(service, view: Self.view)
        } catch {
            #expect(error.userSentence.contains("Size too large"), "the server's words: \(error.userSentence)")
        }
        let hits = try await client.identify(service, at: GeoPoint(longitude: -69.75, latitude: 44.35), view: Self.view)
        #expect(hits == [ServiceIdentifyResult(layerID: 2, layerName: "Rivers", displayField: "NAME", attributes: ["NAME": .string("Kennebec")],
                                               geometry: .lines([[GeoPoint(longitude: -69.8, latitude: 44.3), GeoPoint(longitude: -69.7, latitude: 44.4)]]))])
        let identify = try #require(server.requests.first { $0.path.hasSuffix("/identify") })
        #expect(identify.query["layers"] == "visible:0,2")
        // The web map's choice wins over the service's defaults.
        var chosen = WebMapLayer(title: "Transport", layerType: "ArcGISMapServiceLayer", url: url)
        chosen.visibleLayers = [1]
        #expect(try await client.mapService(chosen).shownLayers == [1])
    }

    @Test func aCSVFileTooLargeOrAnErrorBodyIsRefusedInASentence() async throws {
        let server = try LoopbackServer { request in
            if request.path == "/big.csv" {
                return LoopbackResponse(status: 200, headers: [("Content-Type", "text/csv")], body: Data(repeating: 0x41, count: PortalClient.maxCSVBytes + 1))
            }
            if request.path == "/error.csv" { return .json(#"{"error":{"code":403,"message":"You do not have permissions to access this resource or perform this operation."}}"#) }
            if request.path == "/ok.csv" { return .text("lat,lon,name\n44,-69,A\n", status: 200) }
            return .text("Not Found", status: 404)
        }
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: Self.http)
        func layer(_ path: String) -> WebMapLayer { WebMapLayer(title: "Wells", layerType: "CSV", url: server.baseURL.absoluteString + path) }
        #expect(try await client.csvLayer(layer("/ok.csv")).features.count == 1)
        await #expect(throws: (any Error).self) { try await client.csvLayer(layer("/big.csv")) }
        await #expect(throws: PortalError.self) { try await client.csvLayer(layer("/error.csv")) }
        await #expect(throws: (any Error).self) { try await client.csvLayer(layer("/missing.csv")) }
        await #expect(throws: MapServiceError.self) { try await client.csvLayer(WebMapLayer(title: "Wells", layerType: "CSV", url: "file:///etc/passwd")) }
    }

    /// A signed-in token goes with the file only to the portal's own origin, never to another host.
    @Test func theTokenGoesOnlyWhereThePortalVouches() async throws {
        let other = try LoopbackServer { _ in .text("lat,lon\n44,-69\n", status: 200) }
        defer { other.stop() }
        let portal = try LoopbackServer { _ in .text("lat,lon\n44,-69\n", status: 200) }
        defer { portal.stop() }
        let client = PortalClient(portal: portal.baseURL, token: "s3cret-token", http: Self.http)
        _ = try await client.csvLayer(WebMapLayer(title: "Own", layerType: "CSV", url: portal.baseURL.absoluteString + "/own.csv"))
        _ = try await client.csvLayer(WebMapLayer(title: "Else", layerType: "CSV", url: other.baseURL.absoluteString + "/else.csv"))
        #expect(portal.requests.first { $0.path == "/own.csv" }?.headers["x-esri-authorization"] == "Bearer s3cret-token")
        #expect(other.requests.allSatisfy { $0.headers["x-esri-authorization"] == nil && !$0.target.contains("s3cret") })
    }
}
