import ArcGISPortal
import EventLoop
import Foundation
import HTTP
import MapbookCore
import LibraryModel
import ArcGISModel

extension DownloadFailure {
    /// The failure as the download met it: an HTTP, disk or library error.
    public init(_ error: any Error) {
        // A package the mirror could not give fails as the portal failed it (the sentence says both).
        let cause = (error as? MirrorFallbackError)?.portal ?? error
        let http = cause as? HTTPError
        let diskFull: Bool = {
            if case .diskFull? = http { return true }
            return (cause as? LibraryError)?.isDiskFull == true
        }()
        self.init(sentence: TerminalText.sanitizedLine(error.userSentence, maxLength: 400), isUnreachable: http?.isUnreachable == true,
                  isNetworkFailure: http.map { $0.isUnreachable || $0.isTransient && !$0.isStatus } == true, isDiskFull: diskFull)
    }
}

/// Downloads map areas into the offline library, a few at a time, in the order asked. Everything
/// that happens is published on `events`, in order (one consumer; none is ever dropped): the
/// lifecycle, and between `started` and the end each running area's progress at most five times a
/// second — often enough for a bar, rarely enough that a screen is still between updates — with the
/// rate worked out here (one throttle for every front end), and once more, whole, before `finished`.
/// Cancelling removes an area's partial files; pausing keeps them, so the next enqueue resumes
/// where the bytes stopped.
public actor DownloadQueue {
    public nonisolated let events: AsyncStream<DownloadEvent>
    private let sink: AsyncStream<DownloadEvent>.Continuation
    /// Bytes so far per running area, written from the transfer threads, read by the ticker.
    private let counters = ProgressCounters()
    private var rates: [ItemID: RateMeter] = [:]
    private var ticker: Task<Void, Never>?
    private var published: [ItemID: DownloadProgress] = [:]
    static let progressInterval: Duration = .milliseconds(200)
    private let library: OfflineLibrary
    private let client: PortalClient
    private let http: HTTPClient
    private let maxConcurrent: Int
    private let waitForLocks: Bool
    /// The web map's operational layers each download keeps over its area (`WebMap.keptLayers`).
    private var keptLayers: [WebMapLayer] = []

    private enum Stop { case cancel, pause }
    private var waiting: [MapArea] = []
    private var running: [ItemID: Task<Void, Never>] = [:]
    private var stopping: [ItemID: Stop] = [:]
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    /// `waitForLocks`: an area another process is downloading is waited for rather than failed.
    public init(library: OfflineLibrary, client: PortalClient, http: HTTPClient = HTTPClient(), maxConcurrent: Int = 2,
                waitForLocks: Bool = false) {
        (events, sink) = AsyncStream.makeStream(of: DownloadEvent.self, bufferingPolicy: .unbounded)
        self.library = library; self.client = client; self.http = http
        self.maxConcurrent = max(maxConcurrent, 1)
        self.waitForLocks = waitForLocks
    }

    /// The operational layers later downloads copy (the web map's, once it is read).
    public func setKeptLayers(_ layers: [WebMapLayer]) { keptLayers = layers }

    /// Queues the area (again) unless it is already queued or downloading. A downloaded area is
    /// downloaded anew beside the old files, which stay until the new ones have passed (an update).
    public func enqueue(_ area: MapArea) {
        let id = area.item.id
        guard running[id] == nil, !waiting.contains(where: { $0.item.id == id }) else { return }
        waiting.append(area)
        sink.yield(.queued(id))
        startMore()
    }

    /// Stops the area's download and deletes its partial files.
    public func cancel(_ id: ItemID) {
        if let index = waiting.firstIndex(where: { $0.item.id == id }) {
            waiting.remove(at: index)
            library.removePartialDownload(id)
            sink.yield(.cancelled(id))
            notifyIfIdle()
        } else if let task = running[id] {
            stopping[id] = .cancel
            task.cancel()
        }
    }

    /// Removes the area from the device: stops its download if there is one, waits until that has
    /// ended, then deletes its files. A download finishing meanwhile cannot write its record back.
    public func remove(_ id: ItemID, title: String) async throws(LibraryError) {
        cancel(id)
        if let task = running[id] { await task.value }
        try library.removeDownload(id, title: title)
    }

    /// Stops everything, keeping partial files and saving control files, and returns once stopped.
    public func pauseAll() async {
        for area in waiting { sink.yield(.paused(area.item.id)) }
        waiting.removeAll()
        let tasks = running
        for (id, task) in tasks {
            stopping[id] = .pause
            task.cancel()
        }
        for task in tasks.values { await task.value }
    }

    public var isIdle: Bool { running.isEmpty && waiting.isEmpty }

    /// Areas queued or downloading.
    public var activeAreas: Set<ItemID> { Set(running.keys).union(waiting.map(\.item.id)) }

    /// Returns when nothing is queued or downloading.
    public func waitUntilIdle() async {
        if isIdle { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Ends the event streams (after the last download stopped).
    public func finish() {
        sink.finish()
    }

    private func startMore() {
        while running.count < maxConcurrent, !waiting.isEmpty {
            let area = waiting.removeFirst()
            running[area.item.id] = Task { await self.download(area) }
        }
        if !running.isEmpty, ticker == nil {
            ticker = Task {
                while !Task.isCancelled, await self.tick() { try? await Task.sleep(for: Self.progressInterval) }
            }
        }
        notifyIfIdle()
    }

    /// Publishes each running area's progress that changed; false (and the ticker ends) once
    /// nothing runs.
    private func tick() -> Bool {
        guard !running.isEmpty else {
            ticker = nil
            return false
        }
        let now = ProcessInfo.processInfo.systemUptime
        for (id, counted) in counters.current where running[id] != nil {
            let rate = rates[id, default: RateMeter()].adding(bytes: counted.bytes, at: now)
            publish(id, DownloadProgress(bytes: counted.bytes, total: counted.total,
                                         bytesPerSecond: counted.featureCopies == nil ? rate : nil, featureCopies: counted.featureCopies))
        }
        return true
    }

    private func publish(_ id: ItemID, _ progress: DownloadProgress) {
        guard published[id] != progress else { return }
        published[id] = progress
        sink.yield(.progress(id, progress))
    }

    private func download(_ area: MapArea) async {
        let id = area.item.id
        let sink = self.sink, counters = self.counters
        let job = AreaDownload(area: area, library: library, client: client, http: http, waitForLock: waitForLocks,
                               keptLayers: keptLayers)
        let event: DownloadEvent
        defer {
            counters.remove(id)
            rates[id] = nil
            published[id] = nil
        }
        do {
            // On mapbook's work threads: checking a package (every zip entry's CRC, every tile,
            // SQLite's page check) keeps a core busy for seconds, which the cooperative pool must not lose.
            let record = try await onWorkPool { () async throws -> DownloadRecord in
                try await job.run(started: { sink.yield(.started(id, resumedFrom: $0)) },
                                  report: { counters.set(id, bytes: $0, total: $1) },
                                  copying: { count in
                                      counters.setCopying(id, count)
                                      // The copies' start said at once, not left to the ticker: on a busy
                                      // machine a short copy phase could pass between two ticks unseen.
                                      if count.done == 0, let counted = counters.current[id] {
                                          sink.yield(.progress(id, DownloadProgress(bytes: counted.bytes, total: counted.total, bytesPerSecond: nil,
                                                                                    featureCopies: count)))
                                      }
                                  })
            }
            // The bar ends full before the area is said to be downloaded, however few ticks it saw.
            publish(id, DownloadProgress(bytes: record.size, total: record.size, bytesPerSecond: nil))
            event = .finished(id, record)
        } catch {
            switch stopping[id] {
            case .cancel?:
                library.removePartialDownload(id)
                event = .cancelled(id)
            case .pause?:
                event = .paused(id)
            case nil:
                event = .failed(id, DownloadFailure(error))
            }
        }
        stopping[id] = nil
        running[id] = nil
        sink.yield(event)
        startMore()
    }

    private func notifyIfIdle() {
        guard isIdle else { return }
        let waiters = idleWaiters
        idleWaiters = []
        for waiter in waiters { waiter.resume() }
    }
}
