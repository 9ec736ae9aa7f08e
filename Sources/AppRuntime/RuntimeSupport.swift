import AppModel
import ArcGISPortal
import EventLoop
import Foundation
import HTTP
import MapbookCore
import OfflineLibrary

/// Every task the runtime and its handlers start: kept until it ends, so `shutdown` can cancel
/// and await them all. Nothing in the runtime starts a task any other way.
@UIActor
final class TaskTracker {
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var count = 0
    /// The tasks that answer a request, by its id, for `Effect.cancel`.
    private var answering: [RequestID: Int] = [:]

    /// Starts `body` as a tracked task; with `request`, the one that answers it.
    @discardableResult
    func track(request: RequestID? = nil, _ body: @escaping @UIActor () async -> Void) -> Task<Void, Never> {
        count += 1
        let id = count
        let task = Task { @UIActor [weak self] in
            await body()
            self?.tasks[id] = nil
            if let request { self?.answering[request] = nil }
        }
        tasks[id] = task
        if let request { answering[request] = id }
        return task
    }

    /// Cancels the task answering `request`, if it is still running (the model no longer waits for it).
    func cancel(request: RequestID) {
        guard let id = answering.removeValue(forKey: request) else { return }
        tasks[id]?.cancel()
    }

    /// How many tracked tasks have not ended.
    var running: Int { tasks.count }

    /// Cancels every tracked task and waits until all have ended.
    func stopAll() async {
        let running = tasks.values
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}

/// Where results go: the program that owns the runtime (set once it is attached).
@UIActor
final class EventSink {
    var deliver: (Event) -> Void = { _ in }
    func callAsFunction(_ event: Event) { deliver(event) }
}

/// The portal as the handlers share it: the client once connected, and its download queue.
@UIActor
final class PortalConnection {
    var client: PortalClient?
    var queue: DownloadQueue?
}

/// While a full screen draws its first frame, work that frame does not show waits for it: the
/// portal's first request (which loads libcurl and its thirty libraries), the overview's basemap
/// and the kept thumbnails' decoding. On two cores they made the frame slower by a tenth
/// (docs/benchmarks.md, start-up). Open unless held; held for at most a quarter of a second.
@UIActor
final class FirstFrameGate {
    private var shown: UIMoment?

    func hold(atMost limit: Duration) { shown = UIMoment(limit: limit) }
    func open() { shown?.arrive() }
    func wait() async { await shown?.wait() }
}
