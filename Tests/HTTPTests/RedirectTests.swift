import Foundation
import HTTP
import LoopbackHTTP
import Testing
import TestScheduling

/// Redirects are followed by mapbook, not libcurl, so that a token never leaves its origin.
@Suite("Redirects and credentials", .aheadOfQueuedTests)
struct RedirectTests {
    let token = ("X-Esri-Authorization", "Bearer secret-token")

    /// A portal whose `/data` redirects to a second host (127.0.0.2: another address, as a CDN or an
    /// open redirect would be) must not hand that host the token; the body still arrives.
    @Test func theTokenIsNotSentToAnotherHost() async throws {
        let elsewhere = try LoopbackServer(address: "127.0.0.2") { _ in .text("package bytes", status: 200) }
        defer { elsewhere.stop() }
        let portal = try LoopbackServer { request in
            request.path == "/data" ? .redirect(to: elsewhere.baseURL.absoluteString + "/elsewhere") : .text("?", status: 404)
        }
        defer { portal.stop() }
        let request = HTTPRequest(url: portal.baseURL.appendingPathComponent("data"), headers: [token])

        let response = try await testClient().send(request)
        #expect(String(decoding: response.body, as: UTF8.self) == "package bytes")
        let path = temporaryPath()
        defer { unlink(path) }
        _ = try await testClient().download(request, to: path)
        #expect(FileManager.default.contents(atPath: path) == Data("package bytes".utf8))

        #expect(portal.requests.allSatisfy { $0.headers["x-esri-authorization"] == "Bearer secret-token" })
        #expect(elsewhere.requests.count == 2)
        #expect(elsewhere.requests.allSatisfy { $0.headers["x-esri-authorization"] == nil && $0.headers["authorization"] == nil })
    }

    @Test func theTokenStaysOnRedirectsWithinTheOrigin() async throws {
        let portal = try LoopbackServer { request in
            request.path == "/old" ? .redirect(to: "/new") : .text("here", status: 200)
        }
        defer { portal.stop() }
        _ = try await testClient().send(HTTPRequest(url: portal.baseURL.appendingPathComponent("old"), headers: [token]))
        #expect(portal.requests.map { $0.headers["x-esri-authorization"] } == ["Bearer secret-token", "Bearer secret-token"])
    }

    /// An error from the redirect's target names the target, not the portal.
    @Test func anErrorNamesTheHostThatAnswered() async throws {
        let elsewhere = try LoopbackServer(address: "127.0.0.2") { _ in .text("gone", status: 404) }
        defer { elsewhere.stop() }
        let portal = try LoopbackServer { _ in .redirect(to: elsewhere.baseURL.absoluteString + "/x") }
        defer { portal.stop() }
        await #expect(throws: HTTPError.status(404, host: "127.0.0.2", retryAfter: nil)) {
            try await testClient().send(HTTPRequest(url: portal.baseURL, headers: [token]))
        }
    }

    @Test func httpsToHttpIsRefused() throws {
        let request = HTTPRequest(url: URL(string: "https://www.arcgis.com/sharing/rest/content/items/x/data")!, headers: [token])
        #expect(throws: HTTPError.insecureRedirect(from: "www.arcgis.com", to: "cdn.example.com")) {
            try Redirect.next(after: request, status: 302, location: "http://cdn.example.com/x")
        }
        #expect(throws: HTTPError.invalidURL("file:///etc/passwd")) {
            try Redirect.next(after: request, status: 302, location: "file:///etc/passwd")
        }
    }

    @Test func credentialsAreDroppedForAnyOtherOrigin() throws {
        let request = HTTPRequest(url: URL(string: "https://portal.example.com/a")!,
                                  headers: [token, ("Authorization", "Basic x"), ("Cookie", "c=1"), ("If-Range", "\"e\"")])
        func headers(after location: String) throws -> [String] {
            try #require(try Redirect.next(after: request, status: 307, location: location)).headers.map(\.0)
        }
        #expect(try headers(after: "/b") == ["X-Esri-Authorization", "Authorization", "Cookie", "If-Range"])
        #expect(try headers(after: "https://portal.example.com:443/b") == ["X-Esri-Authorization", "Authorization", "Cookie", "If-Range"])
        for other in ["https://cdn.example.com/b", "https://portal.example.com:8443/b", "https://PORTAL.example.com.evil.net/b"] {
            #expect(try headers(after: other) == ["If-Range"], "\(other)")
        }
    }

    @Test func methodsFollowTheStatus() throws {
        let post = HTTPRequest(url: URL(string: "https://portal.example.com/token")!, method: "POST", body: Data("a=1".utf8))
        let after303 = try #require(try Redirect.next(after: post, status: 303, location: "/done"))
        #expect(after303.method == "GET" && after303.body == nil)
        let after307 = try #require(try Redirect.next(after: post, status: 307, location: "/again"))
        #expect(after307.method == "POST" && after307.body == post.body)
        #expect(try Redirect.next(after: post, status: 304, location: "/x") == nil)
        // What was posted never goes on to another host (a 307 or 308 would resend it); a 303 to
        // another host continues without it.
        #expect(throws: HTTPError.bodyRedirected(from: "portal.example.com", to: "evil.example.net")) {
            try Redirect.next(after: post, status: 307, location: "https://evil.example.net/token")
        }
        #expect(throws: HTTPError.bodyRedirected(from: "portal.example.com", to: "evil.example.net")) {
            try Redirect.next(after: post, status: 308, location: "https://evil.example.net/token")
        }
        #expect(try Redirect.next(after: post, status: 303, location: "https://elsewhere.example.net/done")?.body == nil)
        #expect(try Redirect.next(after: post, status: 302, location: nil) == nil)
    }
}

/// A link that keeps dropping but keeps delivering: every response is cut after 300 kB, five times
/// more often than the retry policy allows failures in a row; each attempt moves the file on, so
/// the download goes to the end.
@Suite("Downloads through a link that keeps dropping", .aheadOfQueuedTests)
struct ProgressingRetryTests {
    @Test func everyResponseCutAfter300kBStillCompletes() async throws {
        let body = sampleBytes(3_400_000)
        let server = try LoopbackServer { request in
            var response = LoopbackResponse.file(body, for: request, etag: "\"v1\"", lastModified: fileDate)
            response.delivery.closeAfterBodyBytes = 300_000
            return response
        }
        defer { server.stop() }
        let path = temporaryPath()
        defer { unlink(path) }
        let client = testClient(retries: 2)
        let result = try await client.download(HTTPRequest(url: server.baseURL), to: path)
        #expect(result.size == Int64(body.count))
        #expect(FileManager.default.contents(atPath: path) == body)
        #expect(server.requests.count == 12)
    }

    @Test func attemptsWithoutProgressStillRunOut() async throws {
        let server = try LoopbackServer { _ in .text("busy", status: 503) }
        defer { server.stop() }
        let path = temporaryPath()
        defer { unlink(path) }
        await #expect(throws: HTTPError.status(503, host: "127.0.0.1", retryAfter: nil)) {
            try await testClient(retries: 2).download(HTTPRequest(url: server.baseURL), to: path)
        }
        #expect(server.requests.count == 3)
    }
}
