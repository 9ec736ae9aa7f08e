import Foundation
import HTTP
import LoopbackHTTP
import MapbookCore
import PortalFixtures
import Testing
@testable import ArcGISPortal

@Suite("Portal client against a loopback ArcGIS")
struct PortalClientTests {
    let server: LoopbackServer
    let client: PortalClient
    let quickHTTP = HTTPClient(configuration: HTTPConfiguration(retry: .none))

    init() throws {
        server = try FakeArcGIS.start()
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
        let request = client.request(["content", "items", FakeArcGIS.webMapID, "relatedItems"],
                                     query: [("relationshipType", "Map2Area"), ("direction", "forward")])
        #expect(request.url.absoluteString == server.baseURL.absoluteString
                + "/sharing/rest/content/items/\(FakeArcGIS.webMapID)/relatedItems?relationshipType=Map2Area&direction=forward&f=json")
        let search = client.request(["search"], query: [("q", "title:\"Explore Maine\" & more")])
        #expect(search.url.query == "q=title%3A%22Explore%20Maine%22%20%26%20more&f=json")
        #expect(client.packageRequest(ItemID(FakeArcGIS.portlandID)!).url.query == nil, "package bytes: no f=json")
    }

    @Test func loadsTheWebMapItemAndDefinition() async throws {
        let item = try await client.item(.exploreMaine)
        #expect(item.title == "Explore Maine")
        let map = try await client.webMap(.exploreMaine)
        #expect(map.bookmarks.count == 2)
        #expect(server.requests.map(\.target) == [
            "/sharing/rest/content/items/\(FakeArcGIS.webMapID)?f=json",
            "/sharing/rest/content/items/\(FakeArcGIS.webMapID)/data?f=json",
        ])
    }

    @Test func listsMapAreasWithPackagesInPortalOrder() async throws {
        let areas = try await client.mapAreas(of: .exploreMaine)
        #expect(areas.map(\.item.title) == ["Greater Portland", "Bangor", "Acadia", "Baxter State Park", "Caribou", "Boston"])
        #expect(areas[0].packages.map(\.item.title) == ["Greater Portland basemap"])
        #expect(areas[0].size == 44_150_784)
        #expect(areas[1].size == 35_651_584)
        #expect(areas[2].packages.isEmpty)
        #expect(areas[3].status == .processing)
        let packageQueries = server.requests.filter { $0.query["relationshipType"] == "Area2Package" }
        #expect(packageQueries.count == 6)
        #expect(packageQueries.allSatisfy { $0.query["direction"] == "forward" && $0.query["f"] == "json" })
    }

    @Test func unknownItemIsNotFoundFromAnHTTP200ErrorBody() async throws {
        let id = ItemID("0000000000000000000000000000dead")!
        await #expect(throws: PortalError(.notFound, host: "127.0.0.1",
                                          serverMessage: "Item does not exist or is inaccessible.", itemID: id)) {
            try await client.item(id)
        }
    }

    @Test func protectedItemNeedsAValidToken() async throws {
        let id = ItemID(FakeArcGIS.protectedID)!
        await #expect(throws: PortalError(.tokenRequired, host: "127.0.0.1", serverMessage: "Token Required", itemID: id)) {
            try await client.item(id)
        }
        let wrong = PortalClient(portal: server.baseURL, token: "stale", http: quickHTTP)
        await #expect(throws: PortalError(.invalidToken, host: "127.0.0.1", serverMessage: "Invalid token.", itemID: id)) {
            try await wrong.item(id)
        }
        let right = PortalClient(portal: server.baseURL, token: FakeArcGIS.validToken, http: quickHTTP)
        #expect(try await right.item(id).title == "Explore Maine")
        #expect(server.requests.allSatisfy { !$0.target.contains("token") }, "tokens never travel in URLs")
    }

    @Test func thumbnailBytes() async throws {
        let item = try await client.item(.exploreMaine)
        #expect(try await client.thumbnail(of: item) == FakeArcGIS.thumbnailPNG)
        #expect(server.requests.last?.path == "/sharing/rest/content/items/\(FakeArcGIS.webMapID)/info/thumbnail/thumbnail.png")
    }

    @Test func thumbnailNameCannotEscapeTheItem() async throws {
        var item = try await client.item(.exploreMaine)
        item.thumbnail = "../../../search"
        await #expect(throws: PortalError.self) { try await client.thumbnail(of: item) }
    }

    @Test func searchPages() async throws {
        let page = try await client.search("title:Maine", num: 2)
        #expect(page.total == 3)
        #expect(page.results.map(\.title) == ["Explore Maine", "Greater Portland"])
        #expect(page.nextStart == 3)
        #expect(server.requests.last?.query == ["q": "title:Maine", "start": "1", "num": "2", "f": "json"])
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
        let failing = try LoopbackServer { _ in .json(data: FakeArcGIS.fixture("error-server")) }
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
