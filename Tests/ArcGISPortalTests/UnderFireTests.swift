import Foundation
import HTTP
import LoopbackHTTP
import MapbookCore
import Testing
import TestScheduling
@testable import ArcGISPortal
import ArcGISModel
import Geometry

/// Hostile and broken servers against the portal client: each case a small server on 127.0.0.1
/// that misbehaves one way, and what mapbook must do about it.
@Suite("The portal client under fire", .aheadOfQueuedTests)
struct PortalUnderFireTests {
    private let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-fire-cache-\(UUID())").path
    private let quick = HTTPClient(configuration: HTTPConfiguration(retry: .none))

    /// Another host answers a layer request at the portal's own path with the portal's ETag; the
    /// portal's `portals/self` must not be taken from it later on a 304.
    @Test func anAnswerFromAnotherHostNeverStandsForThePortals() async throws {
        defer { try? FileManager.default.removeItem(atPath: cacheFolder) }
        let attacker = try LoopbackServer { _ in
            LoopbackResponse(status: 200, headers: [("ETag", "\"same\""), ("Content-Type", "application/json")],
                             body: Data(#"{"helperServices":{"geocode":[{"url":"http://attacker.example/GeocodeServer"}]}}"#.utf8))
        }
        let portal = try LoopbackServer { request in
            if request.headers["if-none-match"] == "\"same\"" { return LoopbackResponse(status: 304, headers: [("ETag", "\"same\"")]) }
            return LoopbackResponse(status: 200, headers: [("ETag", "\"same\""), ("Content-Type", "application/json")],
                                    body: Data(#"{"id":"p","helperServices":{"geocode":[{"url":"https://geocode.example/GeocodeServer"}]}}"#.utf8))
        }
        defer { attacker.stop(); portal.stop() }
        let client = PortalClient(portal: portal.baseURL, http: quick, cache: HTTPCache(directory: cacheFolder))
        _ = try await client.getJSON(attacker.baseURL.appendingPathComponent("sharing/rest"), ["portals", "self"], query: [])
        let service = try await client.geocodeService()
        #expect(service.url.host == "geocode.example")
        #expect(portal.requests.allSatisfy { $0.headers["if-none-match"] == nil }, "the attacker's validators were sent to the portal")
    }

    /// A kept body that no longer decodes, confirmed by a 304: dropped, and asked again without
    /// validators — not blamed on the portal.
    @Test func aDamagedKeptAnswerIsAskedForAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: cacheFolder) }
        let portal = try LoopbackServer { request in
            if request.headers["if-none-match"] != nil { return LoopbackResponse(status: 304, headers: [("ETag", "\"v\"")]) }
            return LoopbackResponse(status: 200, headers: [("ETag", "\"v\""), ("Content-Type", "application/json")],
                                    body: Data(#"{"id":"0123456789abcdef0123456789abcdef","title":"Fine","type":"Web Map"}"#.utf8))
        }
        defer { portal.stop() }
        let cache = HTTPCache(directory: cacheFolder)
        let url = portal.baseURL.appendingPathComponent("sharing/rest/content/items/0123456789abcdef0123456789abcdef")
        let address = try #require(URL(string: url.absoluteString + "?f=json"))
        cache.keep(HTTPResponse(status: 200, headers: HTTPHeaders([("ETag", "\"v\"")]), body: Data("{\"id\": garbage".utf8), url: address), for: address)
        #expect(cache.entry(for: address) != nil)
        let client = PortalClient(portal: portal.baseURL, http: quick, cache: cache)
        let item = try await client.item(try #require(ItemID("0123456789abcdef0123456789abcdef")))
        #expect(item.title == "Fine")
        #expect(portal.requests.count == 2 && portal.requests[1].headers["if-none-match"] == nil)
    }

    /// A token with CR/LF in it is refused where it comes in, and never becomes a second header.
    @Test func aTokenThatWouldSplitHeadersIsRefused() async throws {
        let evil = "tok\r\nX-Injected: yes"
        #expect(!Secrets.isAcceptableToken(evil) && !Secrets.isAcceptableToken("a b") && !Secrets.isAcceptableToken(""))
        #expect(!Secrets.isAcceptableToken(String(repeating: "a", count: Secrets.maxTokenLength + 1)))
        #expect(Secrets.isAcceptableToken("abc.DEF-123_~+/="))
        let server = try LoopbackServer { request in
            switch request.path {
            case "/sharing/rest/generateToken": .json(#"{"token":"tok\r\nX-Injected: yes","expires":99999999999999}"#)
            case "/sharing/rest/oauth2/token": .json(#"{"access_token":"ok","refresh_token":"r\nX: y","expires_in":1800}"#)
            default: .json(#"{"id":"x"}"#)
            }
        }
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: quick)
        await #expect(throws: SignInError.self) { try await client.generateToken(username: "u", password: "p") }
        await #expect(throws: SignInError.self) {
            try await client.exchangeCode("c", clientID: "id", redirectURI: "urn:ietf:wg:oauth:2.0:oob", pkce: PKCE())
        }
        // A session holding such a token (MAPBOOK_TOKEN, a damaged store) sends no header at all.
        _ = try await PortalClient(portal: server.baseURL, token: evil, http: quick).getJSON(["portals", "self"], query: [], about: nil)
        let last = try #require(server.requests.last)
        #expect(last.headers["x-esri-authorization"] == nil && last.headers["x-injected"] == nil)
        // And the HTTP layer itself refuses any header with a line break.
        await #expect(throws: HTTPError.invalidHeader("X-Esri-Authorization")) {
            try await quick.send(HTTPRequest(url: server.baseURL, headers: [("X-Esri-Authorization", "Bearer \(evil)")]))
        }
    }

    /// A token endpoint that echoes the posted form, or quotes the password in its error: neither
    /// reaches the sentence.
    @Test func thePasswordIsNeverQuoted() async throws {
        let password = "s3cret-Passw0rd!"
        let echo = try LoopbackServer { request in
            request.query["mode"] == nil && request.body.count > 0 && String(decoding: request.body, as: UTF8.self).contains("client=")
                ? LoopbackResponse(status: 200, headers: [("Content-Type", "text/plain")], body: request.body) : .json("{}")
        }
        let quoting = try LoopbackServer { request in
            let form = String(decoding: request.body, as: UTF8.self)
            let sent = form.split(separator: "&").first { $0.hasPrefix("password=") }.map { String($0.dropFirst(9)) } ?? ""
            return .json(#"{"error":{"code":500,"message":"Login failed for password \#(sent.removingPercentEncoding ?? sent)","details":[]}}"#)
        }
        defer { echo.stop(); quoting.stop() }
        for server in [echo, quoting] {
            do {
                _ = try await PortalClient(portal: server.baseURL, http: quick).generateToken(username: "u", password: password)
                Issue.record("signed in against a broken token endpoint")
            } catch {
                #expect(!error.userSentence.contains(password) && !error.userSentence.contains("s3cret"), "\(error.userSentence)")
                #expect(!String(describing: error).contains(password))
            }
        }
    }

    /// 400 "Unable to generate token." is a wrong username or password, whatever its words; a token
    /// that has already expired is no sign-in.
    @Test func aRefusedOrExpiredSignInIsSaidAsOne() async throws {
        let refusing = try LoopbackServer { _ in .json(#"{"error":{"code":400,"message":"Unable to generate token.","details":[]}}"#) }
        let stale = try LoopbackServer { _ in .json(#"{"token":"abc","expires":1000,"ssl":true}"#) }
        defer { refusing.stop(); stale.stop() }
        let refused = await #expect(throws: SignInError.self) {
            try await PortalClient(portal: refusing.baseURL, http: quick).generateToken(username: "u", password: "p")
        }
        #expect(refused?.userSentence == "127.0.0.1 did not accept that username and password.")
        let expired = await #expect(throws: SignInError.self) {
            try await PortalClient(portal: stale.baseURL, http: quick).generateToken(username: "u", password: "p")
        }
        #expect(expired?.userSentence.contains("already expired") == true)
    }

    /// OAuth, like the password, goes only over https to another machine.
    @Test func noSignInOverPlainHTTPToAnotherMachine() async throws {
        let client = PortalClient(portal: URL(string: "http://portal.example.com/portal")!, http: quick)
        #expect(throws: SignInError.self) { try client.requireSecureSignIn() }
        await #expect(throws: SignInError.self) {
            try await client.exchangeCode("c", clientID: "id", redirectURI: "urn:ietf:wg:oauth:2.0:oob", pkce: PKCE())
        }
        #expect(throws: Never.self) { try PortalClient(portal: URL(string: "http://127.0.0.1:9/")!).requireSecureSignIn() }
        #expect(throws: Never.self) { try PortalClient(portal: URL(string: "https://portal.example.com/portal")!).requireSecureSignIn() }
    }

    /// A geocoder that answers 10,000 candidates in Web Mercator: the limit holds, and places and
    /// extents come out in degrees.
    @Test func theGeocodersAnswerIsHeldToTheLimitAndItsReference() async throws {
        let x = -97.7431 * .pi / 180 * 6_378_137.0, y = 3_538_000.0
        let candidate = #"{"address":"Austin","location":{"x":\#(x),"y":\#(y)},"score":100,"extent":{"xmin":\#(x - 5000),"ymin":\#(y - 5000),"xmax":\#(x + 5000),"ymax":\#(y + 5000)},"attributes":{}}"#
        let body = #"{"spatialReference":{"wkid":102100,"latestWkid":3857},"candidates":["# + Array(repeating: candidate, count: 10_000).joined(separator: ",") + "]}"
        let suggestions = #"{"suggestions":["# + Array(repeating: #"{"text":"Austin","magicKey":"k"}"#, count: 500).joined(separator: ",") + "]}"
        let geocoder = try LoopbackServer { request in
            request.path.hasSuffix("/suggest") ? .json(suggestions) : .json(body)
        }
        defer { geocoder.stop() }
        let client = PortalClient(portal: geocoder.baseURL, http: quick)
        let service = GeocodeService(url: geocoder.baseURL.appendingPathComponent("arcgis/rest/services/World/GeocodeServer"))
        let found = try await client.findCandidates("Austin", limit: 10, using: service)
        #expect(found.count == 10)
        let place = try #require(found.first)
        #expect(abs(place.location.longitude + 97.7431) < 0.001 && abs(place.location.latitude - 30.27) < 0.1)
        let extent = try #require(place.extent)
        #expect(extent.xmin > -98 && extent.xmax < -97 && extent.ymin > 30 && extent.ymax < 31)
        #expect(try await client.suggest("Aus", limit: 6, using: service).count == 6)
    }

    /// A server that sends a byte a second never trips the stall watchdog; the request's deadline
    /// ends it, with a sentence about slowness.
    @Test func aSlowDripEndsAtTheDeadline() async throws {
        let drip = try LoopbackServer { _ in
            // Ten minutes of bytes at one a second.
            var response = LoopbackResponse.json(String(repeating: " ", count: 600) + "{}")
            response.delivery.bytesPerSecond = 1
            return response
        }
        defer { drip.stop() }
        let client = HTTPClient(configuration: HTTPConfiguration(stallTimeout: .seconds(5), retry: .standard, deadline: .seconds(2)))
        let started = ContinuousClock.now
        let error = await #expect(throws: HTTPError.self) { try await client.send(HTTPRequest(url: drip.baseURL)) }
        #expect(error == .deadlineExceeded("127.0.0.1", seconds: 2))
        // Ended by the deadline, not by the drip running out (generous: the suite runs beside busy loops).
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(error?.userSentence.contains("too slowly") == true)
        // A request's own deadline overrides the client's.
        var request = HTTPRequest(url: drip.baseURL)
        request.deadline = .seconds(1)
        await #expect(throws: HTTPError.deadlineExceeded("127.0.0.1", seconds: 1)) { try await client.send(request) }
    }

    /// A layer whose service pages forever in one of three ways.
    static func endlessLayer(_ mode: String) throws -> (LoopbackServer, WebMapLayer) {
        let maxRecordCount = mode == "zero" ? 0 : 1000
        let description = #"{"name":"Endless","geometryType":"esriGeometryPoint","objectIdField":"OBJECTID","maxRecordCount":\#(maxRecordCount),"# +
            #""advancedQueryCapabilities":{"supportsPagination":true},"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}]}"#
        let server = try LoopbackServer { request in
            guard request.path.hasSuffix("/query") else { return .json(description) }
            let offset = Int(request.query["resultOffset"] ?? "0") ?? 0
            let ids: [Int] = switch mode {
            case "same": [1, 2, 3]
            case "zero": Array(offset..<(offset + (Int(request.query["resultRecordCount"] ?? "1") ?? 1)))
            default: [offset]
            }
            let features = ids.map { #"{"attributes":{"OBJECTID":\#($0)},"geometry":{"x":-70,"y":44}}"# }.joined(separator: ",")
            return .json(#"{"features":[\#(features)],"exceededTransferLimit":true}"#)
        }
        return (server, WebMapLayer(title: "Endless", layerType: "ArcGISFeatureLayer", url: server.baseURL.absoluteString + "/arcgis/rest/services/E/FeatureServer/0"))
    }

    /// A service that always says it held features back: one new feature a page, the same page
    /// again and again, or `maxRecordCount: 0`. Paging stops, bounded, and says why.
    @Test(arguments: ["one", "same", "zero"])
    func pagingThatNeverEndsIsBounded(mode: String) async throws {
        let (server, layer) = try Self.endlessLayer(mode)
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: quick)
        let description = try await client.featureLayer(layer)
        // The page bound is what is tested, not the time budget (beside the cold suite it once ran out first).
        let result = try await client.queryFeatures(description, within: GeoExtent(xmin: -71, ymin: 43, xmax: -69, ymax: 45), limit: 20_000,
                                                    budget: .seconds(900))
        let queries = server.requests.filter { $0.path.hasSuffix("/query") }
        #expect(queries.count <= PortalClient.maxQueryPages)
        #expect(result.isCapped)
        switch mode {
        case "same":
            #expect(queries.count == 2 && result.features.count == 3 && result.stopped?.contains("none not seen before") == true)
        case "zero":
            // No limit said is ArcGIS's default of 1,000 a page, not one feature a page.
            #expect(queries.first?.query["resultRecordCount"] == "1000" && queries.count == 20 && result.features.count == 20_000)
        default:
            #expect(queries.count == PortalClient.maxQueryPages && result.stopped?.contains("stopped after") == true)
        }
    }

    /// A search that pages without end and never lists an item of the type asked for: the listing
    /// ends, empty, after 10,000 results, not never.
    @Test func aSearchThatNeverEndsIsBounded() async throws {
        let server = try LoopbackServer { request in
            let start = Int(request.query["start"] ?? "1") ?? 1
            let results = (0..<100).map { #"{"id":"\#(String(format: "%032x", start + $0))","title":"Not a package","type":"Web Map"}"# }
            return .json(#"{"total":1000000,"start":\#(start),"num":100,"nextStart":\#(start + 100),"results":[\#(results.joined(separator: ","))]}"#)
        }
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: quick)
        let found = try await client.allMobileMapPackages(from: .search("anything"))
        #expect(found.isEmpty)
        #expect(server.requests.count <= PortalClient.maxItemsPerSource / 100 + 1)
    }

    /// A thumbnail of 50 MB is refused by its Content-Length, before its body is taken.
    @Test func aHugeThumbnailIsRefused() async throws {
        let big = Data(count: 50 << 20)
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, headers: [("Content-Type", "image/png")], body: big) }
        defer { server.stop() }
        let client = PortalClient(portal: server.baseURL, http: quick)
        let error = await #expect(throws: HTTPError.self) {
            try await client.thumbnail(of: try #require(ItemID("0123456789abcdef0123456789abcdef")), named: "thumbnail/big.png")
        }
        #expect(error == .responseTooLarge(limit: PortalClient.maxThumbnailBytes))
    }
}
