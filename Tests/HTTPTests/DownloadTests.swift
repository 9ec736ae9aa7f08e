import Foundation
import HTTP
import LoopbackHTTP
import Testing
import TestScheduling

@Suite("Streaming downloads: progress, resume, faults", .aheadOfQueuedTests)
struct DownloadTests {
    let payload = sampleBytes(300_000)

    /// A server that serves `payload` as a file with ranges, letting `tweak` spoil some answers.
    func fileServer(etag: String = "\"v1\"", tweak: @escaping @Sendable (Int, inout LoopbackResponse) -> Void = { _, _ in })
        throws -> (LoopbackServer, Counter) {
        let attempts = Counter()
        let payload = self.payload
        let server = try LoopbackServer { request in
            var response = LoopbackResponse.file(payload, for: request, etag: etag, lastModified: fileDate)
            tweak(attempts.next(), &response)
            return response
        }
        return (server, attempts)
    }

    final class ProgressLog: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [TransferProgress] = []
        func add(_ p: TransferProgress) { lock.withLock { items.append(p) } }
        var all: [TransferProgress] { lock.withLock { items } }
    }

    @Test func downloadsWholeFileWithProgress() async throws {
        let (server, _) = try fileServer(tweak: { _, response in response.delivery.bytesPerSecond = 1_000_000 })
        let path = temporaryPath()
        let log = ProgressLog()
        let result = try await testClient().download(HTTPRequest(url: server.baseURL.appendingPathComponent("f")),
                                                     to: path, progress: { log.add($0) })
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == payload)
        #expect(result.size == Int64(payload.count))
        #expect(result.etag == "\"v1\"")
        let reports = log.all
        #expect(reports.count >= 2, "a 0.3 s transfer reports progress more than once")
        #expect(reports.map(\.bytes) == reports.map(\.bytes).sorted())
        #expect(reports.last == TransferProgress(bytes: Int64(payload.count), expectedTotal: Int64(payload.count), validator: "\"v1\""))
    }

    @Test func resumesWithRangeAndIfRange() async throws {
        let (server, _) = try fileServer()
        let path = temporaryPath()
        try payload.prefix(120_000).write(to: URL(fileURLWithPath: path))
        let result = try await testClient().download(HTTPRequest(url: server.baseURL), to: path,
                                                     resumingFrom: ResumePoint(offset: 120_000, validator: "\"v1\""))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == payload)
        #expect(result.resumedFrom == 120_000)
        #expect(!result.restartedFromZero)
        #expect(server.requests.first?.headers["range"] == "bytes=120000-")
        #expect(server.requests.first?.headers["if-range"] == "\"v1\"")
    }

    @Test func resumeOffsetBeyondTheFileUsesWhatIsOnDisk() async throws {
        let (server, _) = try fileServer()
        let path = temporaryPath()
        try payload.prefix(1000).write(to: URL(fileURLWithPath: path))
        _ = try await testClient().download(HTTPRequest(url: server.baseURL), to: path,
                                            resumingFrom: ResumePoint(offset: 5000, validator: "\"v1\""))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == payload)
        #expect(server.requests.first?.headers["range"] == "bytes=1000-")
    }

    @Test func serverIgnoringRangeRestartsCleanly() async throws {
        let payload = self.payload
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200, body: payload) }
        let path = temporaryPath()
        try Data(repeating: 0xEE, count: 50_000).write(to: URL(fileURLWithPath: path))
        let result = try await testClient().download(HTTPRequest(url: server.baseURL), to: path,
                                                     resumingFrom: ResumePoint(offset: 50_000, validator: nil))
        #expect(result.restartedFromZero)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == payload)
    }

    @Test func changedFileOnServerIsFetchedWhole() async throws {
        let (server, _) = try fileServer(etag: "\"v2\"")
        let path = temporaryPath()
        try Data(repeating: 0xAA, count: 70_000).write(to: URL(fileURLWithPath: path))
        let result = try await testClient().download(HTTPRequest(url: server.baseURL), to: path,
                                                     resumingFrom: ResumePoint(offset: 70_000, validator: "\"v1\""))
        #expect(result.restartedFromZero)
        #expect(result.etag == "\"v2\"")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == payload)
    }

    @Test func droppedConnectionResumesFromTheBytesWritten() async throws {
        let (server, attempts) = try fileServer(tweak: { n, response in
            if n == 1 { response.delivery.closeAfterBodyBytes = 100_000 }
        })
        let path = temporaryPath()
        let result = try await testClient().download(HTTPRequest(url: server.baseURL), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == payload)
        #expect(attempts.value == 2)
        #expect(server.requests[1].headers["range"] == "bytes=100000-")
        #expect(server.requests[1].headers["if-range"] == "\"v1\"")
        #expect(result.resumedFrom == 100_000)
    }

    @Test func wrongContentLengthEndsAsLostConnectionAndKeepsPartialBytes() async throws {
        let (server, _) = try fileServer(tweak: { _, response in
            response.delivery.declaredLength = response.body.count + 1000
        })
        let path = temporaryPath()
        await #expect(throws: HTTPError.connectionLost("127.0.0.1")) {
            try await testClient(retries: 0, lowSpeed: .seconds(1)).download(HTTPRequest(url: server.baseURL), to: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == payload, "the bytes that came are kept for a resume")
    }

    @Test func stalledDownloadRetriesAndResumes() async throws {
        let (server, attempts) = try fileServer(tweak: { n, response in
            if n == 1 { response.delivery.stallAfterBodyBytes = 64_000; response.delivery.stallDuration = .seconds(5) }
        })
        let path = temporaryPath()
        _ = try await testClient(lowSpeed: .seconds(1)).download(HTTPRequest(url: server.baseURL), to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == payload)
        #expect(attempts.value == 2)
        #expect(server.requests[1].headers["range"] == "bytes=64000-")
        server.stop()
    }

    @Test func errorStatusIsNotWrittenIntoTheFile() async throws {
        let server = try LoopbackServer { _ in .text("<html>gone</html>", status: 404) }
        let path = temporaryPath()
        await #expect(throws: HTTPError.status(404, host: "127.0.0.1", retryAfter: nil)) {
            try await testClient().download(HTTPRequest(url: server.baseURL), to: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
    }

    @Test func alreadyCompleteFileAnswered416IsDone() async throws {
        let (server, _) = try fileServer()
        let path = temporaryPath()
        try payload.write(to: URL(fileURLWithPath: path))
        let result = try await testClient().download(HTTPRequest(url: server.baseURL), to: path,
                                                     resumingFrom: ResumePoint(offset: Int64(payload.count), validator: "\"v1\""))
        #expect(result.size == Int64(payload.count))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == payload)
    }

    @Test func fullDiskIsTyped() async throws {
        try #require(FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full")
        let (server, _) = try fileServer()
        await #expect(throws: HTTPError.diskFull(path: "/dev/full")) {
            try await testClient().download(HTTPRequest(url: server.baseURL), to: "/dev/full")
        }
    }

    @Test func cancellingADownloadLeavesItsBytesForLater() async throws {
        // Slow enough (75 s for the whole file) that the cancel lands mid-transfer even when a busy
        // machine starts this task, or runs its polling, tens of seconds late.
        let (server, _) = try fileServer(tweak: { _, response in response.delivery.bytesPerSecond = 4_000 })
        let path = temporaryPath()
        let client = testClient()
        let task = Task { try await client.download(HTTPRequest(url: server.baseURL), to: path) }
        // Cancel once some bytes are on disk (polled, so a slow machine does not fail the test).
        let deadline = ContinuousClock.now + .seconds(60)
        while ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        task.cancel()
        await #expect(throws: HTTPError.cancelled) { try await task.value }
        let kept = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(kept.count > 0 && kept.count < payload.count)
        #expect(kept == payload.prefix(kept.count))
        server.stop()
    }
}
