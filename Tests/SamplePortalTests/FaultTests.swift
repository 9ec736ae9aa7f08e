import ArcGISPortal
import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import Testing
import TileFormats
@testable import SamplePortal
import ArcGISModel

/// The portal client and HTTP downloads against each fault the sample portal injects.
@Suite struct FaultTests {
    let portal: SamplePortal
    let area = SampleFixture.portland

    init() throws { portal = try SampleFixture.start() }

    var original: Data { SampleFixture.content.packages[area.packageID]!.data }

    func client(retry: RetryPolicy = .none, stall: Duration = .seconds(30)) -> PortalClient {
        PortalClient(portal: portal.baseURL, http: http(retry: retry, stall: stall))
    }

    func http(retry: RetryPolicy = .none, stall: Duration = .seconds(30)) -> HTTPClient {
        HTTPClient(configuration: HTTPConfiguration(stallTimeout: stall, retry: retry))
    }

    static let quickRetries = RetryPolicy(maxRetries: 4, initialDelay: .milliseconds(50), maxDelay: .milliseconds(200),
                                          totalTimeLimit: .seconds(120))

    /// The package's bytes, fetched the way the library will: `PortalClient.packageRequest` through `HTTPClient.download`.
    func download(with http: HTTPClient, progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws -> (Data, DownloadResult) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fault-\(UUID()).vtpk").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let request = PortalClient(portal: portal.baseURL).packageRequest(ItemID(area.packageID)!)
        let result = try await http.download(request, to: path, progress: progress)
        return (try Data(contentsOf: URL(fileURLWithPath: path)), result)
    }

    var packageRanges: [String?] {
        portal.requests.filter { $0.path.hasSuffix("\(area.packageID)/data") }.map { $0.headers["range"] }
    }

    @Test func latencyDelaysEveryAnswer() async throws {
        try portal.updateFaults { try $0.apply("latency=300") }
        let started = ContinuousClock.now
        _ = try await client().item(.exploreMaine)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    @Test func bandwidthCapGivesProgressAlongTheWay() async throws {
        try portal.updateFaults { try $0.apply("bandwidth=4M") }
        let reports = Reports()
        let (data, _) = try await download(with: http()) { reports.add($0.bytes) }
        #expect(data == original)
        #expect(reports.distinct >= 3, "bytes arrive in steps, not at once")
    }

    @Test func droppedConnectionResumesWithRange() async throws {
        try portal.updateFaults { try $0.apply("drop=300000,times=1") }
        let (data, _) = try await download(with: http(retry: Self.quickRetries))
        #expect(data == original)
        #expect(packageRanges == [nil, "bytes=300000-"])
    }

    @Test func serverErrorsWithRetryAfterAreRetried() async throws {
        try portal.updateFaults { try $0.apply("status=503,retryAfter=1,count=2") }
        let started = ContinuousClock.now
        let item = try await client(retry: Self.quickRetries).item(.exploreMaine)
        #expect(item.title == "Explore Maine")
        #expect(portal.requests.count == 3)
        #expect(ContinuousClock.now - started >= .seconds(2), "Retry-After: 1 honoured twice")

        try portal.updateFaults { try $0.apply("reset,status=500,count=1") }
        await #expect(throws: HTTPError.status(500, host: "127.0.0.1", retryAfter: nil)) { try await client().item(.exploreMaine) }
    }

    @Test func stallMidBodyIsAbandonedAndResumed() async throws {
        try portal.updateFaults { try $0.apply("stall=200000,stallSeconds=10,times=1") }
        let (data, _) = try await download(with: http(retry: Self.quickRetries, stall: .seconds(1)))
        #expect(data == original)
        #expect(packageRanges == [nil, "bytes=200000-"])
    }

    @Test func ignoredRangeRestartsCleanly() async throws {
        try portal.updateFaults { try $0.apply("ignoreRange,drop=250000,times=1") }
        let (data, result) = try await download(with: http(retry: Self.quickRetries))
        #expect(data == original, "the whole file again, not a splice")
        #expect(result.restartedFromZero)
        #expect(packageRanges == [nil, "bytes=250000-"])
    }

    @Test func wrongContentLengthIsATypedFailure() async throws {
        try portal.updateFaults { try $0.apply("wrongLength") }
        await #expect(throws: HTTPError.self) { try await download(with: http()) }
    }

    @Test func corruptBytesArriveWithTheSameSize() async throws {
        try portal.updateFaults { try $0.apply("corrupt") }
        let (data, _) = try await download(with: http())
        #expect(data.count == original.count)
        #expect(data != original, "only a checksum can tell: the library's verify must")
    }

    @Test func areaStatusProcessingAndFailed() async throws {
        try portal.updateFaults { try $0.apply("processing=Acadia,failed=Boston") }
        let areas = try await client().mapAreas(of: .exploreMaine)
        #expect(areas.map(\.status) == [.processing, .failed, .complete, .complete, .complete, .complete])
        #expect(areas.map(\.status.isDownloadable) == [false, false, true, true, true, true])
    }

    @Test func updateChangesModifiedAndBytesAndStaysAPackage() async throws {
        let before = try await client().mapAreas(of: .exploreMaine).first { $0.item.id.rawValue == area.id }!
        try portal.updateFaults { try $0.apply("update=Greater Portland") }
        let after = try await client().mapAreas(of: .exploreMaine).first { $0.item.id.rawValue == area.id }!
        let old = try #require(before.packages.first?.item), new = try #require(after.packages.first?.item)
        #expect(new.modified! > old.modified!)
        #expect(new.size != old.size)
        let (data, _) = try await download(with: http())
        #expect(Int64(data.count) == new.size)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("updated-\(UUID()).vtpk").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try data.write(to: URL(fileURLWithPath: path))
        #expect(try TilePackage(path: path).verifyTiles().damaged.isEmpty)
    }

    @Test func outageRefusesThenRecovers() async throws {
        try portal.setOutage(true)
        do {
            _ = try await client().item(.exploreMaine)
            Issue.record("expected the portal to be unreachable")
        } catch let error as HTTPError {
            #expect(error.isUnreachable)
        }
        try portal.setOutage(false)
        #expect(try await client().item(.exploreMaine).title == "Explore Maine")
    }
}

/// Progress reports, collected from the transfer's thread.
final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [Int64] = []
    func add(_ value: Int64) { lock.withLock { bytes.append(value) } }
    var distinct: Int { lock.withLock { Set(bytes).count } }
}
