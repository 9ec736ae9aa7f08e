import Foundation
import HTTP
import LoopbackHTTP
import Testing
import TestScheduling

/// A client that fails fast in tests: short stall detection, quick retries.
/// A client that retries quickly. Its stall limit is long unless a test of stalls sets one: on a
/// machine too busy to run the loopback server's thread for two seconds, a test of something else
/// would otherwise end in a stall.
func testClient(retries: Int = 3, lowSpeed: Duration = .seconds(30), maxBody: Int = 64 << 20) -> HTTPClient {
    HTTPClient(configuration: HTTPConfiguration(
        connectTimeout: .seconds(5), stallTimeout: lowSpeed, maxBodyBytes: maxBody,
        retry: RetryPolicy(maxRetries: retries, initialDelay: .milliseconds(20), maxDelay: .milliseconds(200),
                           totalTimeLimit: .seconds(120))))
}

@Suite("HTTP requests against a loopback server", .aheadOfQueuedTests)
struct HTTPRequestTests {
    @Test func getReturnsBodyAndSendsUserAgent() async throws {
        let server = try LoopbackServer { _ in .text("hello", status: 200) }
        let response = try await testClient().send(HTTPRequest(url: server.baseURL.appendingPathComponent("x")))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello")
        #expect(server.requests.first?.headers["user-agent"] == "mapbook/\(HTTPClient.version)")
    }

    @Test func requestHeadersAreSent() async throws {
        let server = try LoopbackServer { _ in .text("", status: 200) }
        _ = try await testClient().send(HTTPRequest(url: server.baseURL, headers: [("X-Esri-Authorization", "Bearer abc")]))
        #expect(server.requests.first?.headers["x-esri-authorization"] == "Bearer abc")
    }

    @Test func gzipBodiesAreOfferedAndDecoded() async throws {
        let compressed = Data(base64Encoded: "H4sIAAAAAAACA6tWykjNyclXslJKr8osUKqtHuWP8kf5cD4ApV/cUCADAAA=")!
        let server = try LoopbackServer { request in
            guard request.headers["accept-encoding"]?.contains("gzip") == true else { return .text("no gzip offered", status: 400) }
            return LoopbackResponse(status: 200, headers: [("Content-Encoding", "gzip")], body: compressed)
        }
        let response = try await testClient().send(HTTPRequest(url: server.baseURL))
        #expect(String(decoding: response.body, as: UTF8.self) == String(repeating: #"{"hello":"gzip"}"#, count: 50))
    }

    @Test func clientErrorIsThrownWithoutRetry() async throws {
        let server = try LoopbackServer { _ in .text("missing", status: 404) }
        await #expect(throws: HTTPError.status(404, host: "127.0.0.1", retryAfter: nil)) {
            try await testClient().send(HTTPRequest(url: server.baseURL))
        }
        #expect(server.requests.count == 1)
    }

    @Test func redirectsAreFollowed() async throws {
        let server = try LoopbackServer { request in
            request.path == "/old" ? .redirect(to: "/new") : .text("moved here", status: 200)
        }
        let response = try await testClient().send(HTTPRequest(url: server.baseURL.appendingPathComponent("old")))
        #expect(String(decoding: response.body, as: UTF8.self) == "moved here")
        #expect(response.url.path == "/new")
    }

    @Test func redirectLoopEndsWithTypedError() async throws {
        let server = try LoopbackServer { _ in .redirect(to: "/again") }
        await #expect(throws: HTTPError.tooManyRedirects("127.0.0.1")) {
            try await testClient().send(HTTPRequest(url: server.baseURL))
        }
    }

    @Test func serviceUnavailableHonoursRetryAfterThenSucceeds() async throws {
        let attempts = Counter()
        let server = try LoopbackServer { _ in
            if attempts.next() == 1 {
                var busy = LoopbackResponse.text("busy", status: 503)
                busy.headers.append(("Retry-After", "1"))
                return busy
            }
            return .text("ok", status: 200)
        }
        let started = ContinuousClock.now
        let response = try await testClient().send(HTTPRequest(url: server.baseURL))
        #expect(String(decoding: response.body, as: UTF8.self) == "ok")
        #expect(attempts.value == 2)
        // The client waited as told, not its own 20 ms backoff.
        #expect(ContinuousClock.now - started >= .milliseconds(900))
    }

    @Test func transientFailuresGiveUpAfterTheRetryBudget() async throws {
        let server = try LoopbackServer { _ in .text("down", status: 502) }
        await #expect(throws: HTTPError.status(502, host: "127.0.0.1", retryAfter: nil)) {
            try await testClient(retries: 2).send(HTTPRequest(url: server.baseURL))
        }
        #expect(server.requests.count == 3)
    }

    @Test func refusedConnectionIsTyped() async throws {
        let server = try LoopbackServer { _ in .text("", status: 200) }
        let url = server.baseURL
        server.stop()
        await #expect(throws: HTTPError.cannotConnect("127.0.0.1")) {
            try await testClient(retries: 0).send(HTTPRequest(url: url))
        }
    }

    @Test func unresolvableHostIsTyped() async throws {
        await #expect(throws: HTTPError.cannotResolveHost("no-such-host.invalid")) {
            try await testClient(retries: 0).send(HTTPRequest(url: URL(string: "http://no-such-host.invalid/")!))
        }
    }

    @Test func oversizedResponseIsRefused() async throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, body: sampleBytes(10_000)) }
        await #expect(throws: HTTPError.responseTooLarge(limit: 1000)) {
            try await testClient(maxBody: 1000).send(HTTPRequest(url: server.baseURL))
        }
    }

    @Test func stalledBodyIsAbandoned() async throws {
        let server = try LoopbackServer { _ in
            var response = LoopbackResponse(status: 200, body: sampleBytes(100_000))
            response.delivery.stallAfterBodyBytes = 1000
            response.delivery.stallDuration = .seconds(10)
            return response
        }
        await #expect(throws: HTTPError.stalled("127.0.0.1")) {
            try await testClient(retries: 0, lowSpeed: .seconds(1)).send(HTTPRequest(url: server.baseURL))
        }
        server.stop()
    }

    @Test func droppedConnectionIsRetried() async throws {
        let attempts = Counter()
        let payload = sampleBytes(50_000)
        let server = try LoopbackServer { _ in
            var response = LoopbackResponse(status: 200, body: payload)
            if attempts.next() == 1 { response.delivery.closeAfterBodyBytes = 10_000 }
            return response
        }
        let response = try await testClient().send(HTTPRequest(url: server.baseURL))
        #expect(response.body == payload)
        #expect(attempts.value == 2)
    }

    @Test func cancellingStopsATransferPromptly() async throws {
        let server = try LoopbackServer { _ in
            var response = LoopbackResponse(status: 200, body: sampleBytes(1_000_000))
            response.delivery.bytesPerSecond = 10_000
            return response
        }
        let client = testClient()
        let task = Task { try await client.send(HTTPRequest(url: server.baseURL)) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelledAt = ContinuousClock.now
        task.cancel()
        await #expect(throws: HTTPError.cancelled) { try await task.value }
        // The whole body would take 100 s; cancelled, it ends within about a second (the progress
        // callback's period). The bound is loose so a loaded machine cannot make it fail (21 s was
        // seen once beside two busy loops and the rest of the suite).
        #expect(ContinuousClock.now - cancelledAt < .seconds(40))
        server.stop()
    }
}
