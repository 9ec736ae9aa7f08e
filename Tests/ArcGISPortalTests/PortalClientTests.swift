import Foundation
import HTTP
import LoopbackHTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
@testable import ArcGISPortal
import ArcGISModel

@Suite("Portal client against the sample portal")
struct PortalClientTests {
    let server: SamplePortal
    let client: PortalClient
    let quickHTTP = HTTPClient(configuration: HTTPConfiguration(retry: .none))

    init() throws {
        server = try SampleFixture.start()
        client = PortalClient(portal: server.baseURL, http: quickHTTP)
    }

    @Test func portalURLsAreNormalised() {
        for text in ["https://www.arcgis.com", "https://www.arcgis.com/", "https://www.arcgis.com/sharing/rest",
                     "https://www.arcgis.com/sharing/rest/"] {
            #expect(PortalClient(portal: URL(string: text)!).restURL.absoluteString == "https://www.arcgis.com/sharing/rest")
        }
        #expect(PortalClient(portal: URL(string: "https://gis.example.org/portal")!).restURL.absoluteString
                == "https://gis.example.org/portal/sharing/rest")
    }

    @Test func requestURLsFollowTheRESTAPIExactly() {
        let request = client.request(["content", "items", SampleFixture.webMapID, "relatedItems"],
                                     query: [("relationshipType", "Map2Area"), ("direction", "forward")])
        #expect(request.url.absoluteString == server.baseURL.absoluteString
                + "/sharing/rest/content/items/\(SampleFixture.webMapID)/relatedItems?relationshipType=Map2Area&direction=forward&f=json")
        let search = client.request(["search"], query: [("q", "title:\"Explore Maine\" & more")])
        #expect(search.url.query == "q=title%3A%22Explore%20Maine%22%20%26%20more&f=json")
        #expect(client.packageRequest(ItemID(SampleFixture.portlandID)!).url.query == nil, "package bytes: no f=json")
    }

    @Test func loadsTheWebMapItemAndDefinition() async throws {
        let item = try await client.item(.exploreMaine)
        #expect(item.title == "Explore Maine")
        let map = try await client.webMap(.exploreMaine)
        #expect(map.bookmarks.map(\.name) == ["All of Maine", "Acadia", "Boston", "Baxter State Park", "Greater Portland",
                                               "Caribou", "Bangor"])
        #expect(map.basemapLayers.first?.layerType == "VectorTileLayer")
        #expect(map.initialExtent?.geographic.map { abs($0.xmin - -71.3) < 1e-6 && abs($0.ymax - 47.5) < 1e-6 } == true)
        #expect(server.requests.map(\.target) == [
            "/sharing/rest/content/items/\(SampleFixture.webMapID)?f=json",
            "/sharing/rest/content/items/\(SampleFixture.webMapID)/data?f=json",
        ])
    }

    @Test func listsMapAreasWithPackagesInPortalOrder() async throws {
        let areas = try await client.mapAreas(of: .exploreMaine)
        #expect(areas.map(\.item.title) == ["Acadia", "Boston", "Baxter State Park", "Greater Portland", "Caribou", "Bangor"])
        let portland = try #require(areas.first { $0.item.id.rawValue == SampleFixture.portlandID })
        #expect(portland.packages.map(\.item.title) == ["Greater Portland basemap"])
        #expect(portland.packages.map(\.item.type) == ["Vector Tile Package"])
        #expect(portland.size == Int64(SampleFixture.content.packages[SampleFixture.portland.packageID]!.data.count))
        #expect(areas.allSatisfy { $0.status == .complete && $0.size > 100_000 })
        let packageQueries = server.requests.filter { $0.query["relationshipType"] == "Area2Package" }
        #expect(packageQueries.count == 6)
        #expect(packageQueries.allSatisfy { $0.query["direction"] == "forward" && $0.query["f"] == "json" })
    }

    /// Real portals vary: an area may have several packages, or none yet.
    @Test func areasWithSeveralPackagesOrNone() async throws {
        let item = #"{"id":"%@","title":"%@","type":"%@","owner":"o","size":%d,"properties":{"status":"complete"}}"#
        let varied = try LoopbackServer { request in
            switch (request.path.split(separator: "/").dropLast().last.map(String.init), request.query["relationshipType"]) {
            case (SampleFixture.webMapID?, "Map2Area"?):
                let areas = [String(format: item, String(repeating: "a", count: 32), "Two", "Map Area", -1),
                             String(format: item, String(repeating: "b", count: 32), "None", "Map Area", -1)]
                return .json(#"{"total":2,"relatedItems":[\#(areas.joined(separator: ","))]}"#)
            case (String(repeating: "a", count: 32)?, "Area2Package"?):
                let packages = [String(format: item, String(repeating: "c", count: 32), "Basemap", "Vector Tile Package", 1000),
                                String(format: item, String(repeating: "d", count: 32), "Hillshade", "Tile Package", 500)]
                return .json(#"{"total":2,"relatedItems":[\#(packages.joined(separator: ","))]}"#)
            default:
                return .json(#"{"total":0,"relatedItems":[]}"#)
            }
        }
        let areas = try await PortalClient(portal: varied.baseURL, http: quickHTTP).mapAreas(of: .exploreMaine)
        #expect(areas.map(\.packages.count) == [2, 0])
        #expect(areas[0].size == 1500)
    }

    @Test func unknownItemIsNotFoundFromAnHTTP200ErrorBody() async throws {
        let id = ItemID("0000000000000000000000000000dead")!
        await #expect(throws: PortalError(.notFound, host: "127.0.0.1",
                                          serverMessage: "Item does not exist or is inaccessible.", itemID: id)) {
            try await client.item(id)
        }
    }

    @Test func protectedItemNeedsAValidToken() async throws {
        let id = ItemID(SampleCatalog.protectedID)!
        await #expect(throws: PortalError(.tokenRequired, host: "127.0.0.1", serverMessage: "Token Required", itemID: id)) {
            try await client.item(id)
        }
        let wrong = PortalClient(portal: server.baseURL, token: "stale", http: quickHTTP)
        await #expect(throws: PortalError(.invalidToken, host: "127.0.0.1", serverMessage: "Invalid token.", itemID: id, tokenSent: true)) {
            try await wrong.item(id)
        }
        // Told apart: a token that was not accepted is not "set a token".
        #expect(PortalError(.tokenRequired, host: "h", tokenSent: false).userSentence.contains("Sign in: mapbook auth login (or set MAPBOOK_TOKEN to a valid token)"))
        #expect(PortalError(.tokenRequired, host: "h", tokenSent: true).userSentence.hasPrefix("h did not accept this sign-in"))
        #expect(PortalError(.invalidToken, host: "h", tokenSent: true).userSentence.hasPrefix("h did not accept the token: it is invalid or has expired. Sign in again"))
        let right = PortalClient(portal: server.baseURL, token: SampleCatalog.validToken, http: quickHTTP)
        #expect(try await right.item(id).title == "Explore Maine (staff)")
        #expect(server.requests.allSatisfy { !$0.target.contains("token") }, "tokens never travel in URLs")
    }

    @Test func thumbnailBytes() async throws {
        let item = try await client.item(.exploreMaine)
        #expect(try await client.thumbnail(of: item) == SampleFixture.content.thumbnails[SampleFixture.webMapID])
        #expect(server.requests.last?.path == "/sharing/rest/content/items/\(SampleFixture.webMapID)/info/thumbnail/thumbnail.png")
    }

    @Test func thumbnailNameCannotEscapeTheItem() async throws {
        var item = try await client.item(.exploreMaine)
        item.thumbnail = "../../../search"
        await #expect(throws: PortalError.self) { try await client.thumbnail(of: item) }
    }

    @Test func searchPages() async throws {
        let page = try await client.search("title:Portland", num: 1)
        #expect(page.total == 2)
        #expect(page.results.map(\.title) == ["Greater Portland"])
        #expect(page.nextStart == 2)
        #expect(server.requests.last?.query == ["q": "title:Portland", "start": "1", "num": "1", "f": "json"])
        let next = try await client.search("title:Portland", start: 2, num: 1)
        #expect(next.results.map(\.title) == ["Greater Portland basemap"])
        #expect(next.nextStart == nil)
    }

    @Test func nonJSONAnswerIsMalformed() async throws {
        let html = try LoopbackServer { _ in .text("<html>captive portal login</html>", status: 200) }
        let client = PortalClient(portal: html.baseURL, http: quickHTTP)
        do {
            _ = try await client.item(.exploreMaine)
            Issue.record("expected an error")
        } catch let error as PortalError {
            #expect(error.kind == .malformedResponse)
            #expect(error.userMessage.contains("not valid ArcGIS JSON"))
        }
    }

    @Test func relatedItemsWithoutAListIsMalformed() async throws {
        let odd = try LoopbackServer { _ in .json(#"{"total":1}"#) }
        let client = PortalClient(portal: odd.baseURL, http: quickHTTP)
        await #expect(throws: PortalError.self) { try await client.mapAreas(of: .exploreMaine) }
    }

    @Test func httpStatusesMapToTheSameTypedErrors() async throws {
        let forbidden = try LoopbackServer { _ in .text("Forbidden", status: 403) }
        let client = PortalClient(portal: forbidden.baseURL, http: quickHTTP)
        await #expect(throws: PortalError(.noAccess, host: "127.0.0.1", itemID: .exploreMaine)) {
            try await client.item(.exploreMaine)
        }
    }

    @Test func serverErrorBodyIsSanitised() async throws {
        let failing = try LoopbackServer { _ in
            .json(#"{"error":{"code":500,"message":"Unable to complete \u001b[31moperation.\n Internal failure","details":[]}}"#)
        }
        let client = PortalClient(portal: failing.baseURL, http: quickHTTP)
        do {
            _ = try await client.item(.exploreMaine)
            Issue.record("expected an error")
        } catch let error as PortalError {
            #expect(error.kind == .serverError(code: 500))
            #expect(error.serverMessage == "Unable to complete operation. Internal failure")
        }
    }

    @Test func unreachablePortalIsAnHTTPError() async throws {
        let gone = try LoopbackServer { _ in .text("", status: 200) }
        let url = gone.baseURL
        gone.stop()
        let client = PortalClient(portal: url, http: quickHTTP)
        do {
            _ = try await client.item(.exploreMaine)
            Issue.record("expected an error")
        } catch let error as HTTPError {
            #expect(error.isUnreachable)
        }
    }
}

/// A web map with many areas whose package lists come slowly: the list is reported as it fills.
@Suite struct LongListingTests {
    @Test func aSlowListingIsReportedAsItFills() async throws {
        let count = 80
        let ids = (0..<count).map { String(format: "c%031d", $0) }
        let server = try LoopbackServer { request in
            if request.query["relationshipType"] == "Map2Area" {
                let items = ids.map { #"{"id":"\#($0)","type":"Map Area","title":"Area \#($0.suffix(2))","properties":{"status":"complete"}}"# }
                return .json(#"{"total":\#(count),"relatedItems":[\#(items.joined(separator: ","))]}"#)
            }
            Thread.sleep(forTimeInterval: 0.06)
            let id = request.path.split(separator: "/").dropLast().last.map(String.init) ?? "x"
            let package = #"{"id":"d\#(id.dropFirst())","type":"Vector Tile Package","title":"P","size":1000}"#
            return .json(#"{"total":1,"relatedItems":[\#(package)]}"#)
        }
        defer { server.stop() }
        let reports = Reports()
        let areas = try await PortalClient(portal: server.baseURL, http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
            .mapAreas(of: .exploreMaine) { areas, known in reports.add(areas, known) }
        #expect(areas.count == count && areas.allSatisfy { $0.isDownloadable && !$0.packagesPending })
        let seen = reports.all
        #expect(seen.contains { $0.1 < count }, "80 lookups at 60 ms, 8 at a time, take longer than a report's half second")
        for (listed, known) in seen {
            #expect(listed.count == count)
            #expect(listed.filter { !$0.packagesPending }.count == known)
            #expect(listed.filter(\.packagesPending).allSatisfy { !$0.isDownloadable })
        }
    }

    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var reports: [([MapArea], Int)] = []
        func add(_ areas: [MapArea], _ known: Int) { lock.withLock { reports.append((areas, known)) } }
        var all: [([MapArea], Int)] { lock.withLock { reports } }
    }
}
