import ArcGISPortal
import Foundation
import HTTP
import MapbookCore
import OfflineLibrary
import PortalFixtures
import SamplePortal
import ArcGISModel
import LibraryModel

/// A sample portal, a library in a fresh folder, and a queue downloading from one into the other.
struct LibraryFixture {
    let portal: SamplePortal
    let root: String
    let library: OfflineLibrary
    let client: PortalClient

    static let quickRetries = RetryPolicy(maxRetries: 3, initialDelay: .milliseconds(50), maxDelay: .milliseconds(200),
                                          totalTimeLimit: .seconds(120))

    init(faults: String = "", root: String? = nil) throws {
        var settings = SampleFaults()
        try settings.apply(faults)
        portal = try SampleFixture.start(faults: settings)
        self.root = root ?? Self.temporaryFolder()
        library = OfflineLibrary(root: self.root, portal: portal.baseURL, webMap: ItemID(SampleFixture.webMapID)!)
        client = PortalClient(portal: portal.baseURL, http: Self.http())
    }

    static func temporaryFolder() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-library-\(UUID())").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func http(retry: RetryPolicy = quickRetries, stall: Duration = .seconds(2)) -> HTTPClient {
        HTTPClient(configuration: HTTPConfiguration(stallTimeout: stall, retry: retry))
    }

    func queue(retry: RetryPolicy = quickRetries) -> DownloadQueue {
        DownloadQueue(library: library, client: client, http: Self.http(retry: retry))
    }

    func area(_ id: String) async throws -> MapArea {
        try await client.mapAreas(of: ItemID(SampleFixture.webMapID)!).first { $0.item.id.rawValue == id }!
    }

    var portland: SampleArea { SampleFixture.portland }
    var portlandID: ItemID { ItemID(SampleFixture.portlandID)! }
    var original: Data { SampleFixture.content.packages[portland.packageID]!.data }

    /// The Range headers of every request for Portland's package.
    var packageRanges: [String?] {
        portal.requests.filter { $0.path.hasSuffix("\(portland.packageID)/data") }.map { $0.headers["range"] }
    }

    /// Downloads Portland and returns the events up to its last one.
    func downloadPortland(with queue: DownloadQueue) async throws -> [DownloadEvent] {
        let area = try await area(SampleFixture.portlandID)
        await queue.enqueue(area)
        return await Self.events(of: queue, until: portlandID)
    }

    /// Waits until the queue reports more than `bytes` of the area's download (taking the events
    /// up to there from the queue's one stream).
    static func progress(of queue: DownloadQueue, _ id: ItemID, beyond bytes: Int64) async {
        for await event in queue.events {
            if case .progress(id, let progress) = event, progress.bytes > bytes { return }
        }
    }

    /// Collects events until the area finishes, fails, is cancelled or paused.
    static func events(of queue: DownloadQueue, until id: ItemID) async -> [DownloadEvent] {
        var seen: [DownloadEvent] = []
        for await event in queue.events {
            seen.append(event)
            switch event {
            case .finished(id, _), .failed(id, _), .cancelled(id), .paused(id): return seen
            default: continue
            }
        }
        return seen
    }

    func cleanUp() {
        portal.stop()
        try? FileManager.default.removeItem(atPath: root)
    }
}

extension [DownloadEvent] {
    var failure: DownloadFailure? {
        for case .failed(_, let failure) in self { return failure }
        return nil
    }

    var record: DownloadRecord? {
        for case .finished(_, let record) in self { return record }
        return nil
    }

}
