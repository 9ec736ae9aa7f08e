import AppModel
import EventLoop
import Foundation
import Location
import MapbookCore
import OfflineLibrary
import Synchronization

/// Where this device is: gpsd watched on a thread of its own (`GPSDWatcher`), or the config's
/// fixed position. Reports reach the model at most five times a second, the latest winning: a
/// 10 Hz or 100 Hz receiver wakes the screen no more than that. The track being recorded is
/// written off the UI thread, in the order asked: started, appended (each point flushed to the
/// disk), ended; one still open when the program ends is kept if it has points, else removed.
@UIActor
final class LocationHandler {
    private let send: EventSink
    private var watcher: GPSDWatcher?
    private let latest = LatestReport()
    private let tracks: TrackWriter
    private let writes = SerialQueue()

    init(tracks: TrackStore, send: EventSink) { self.tracks = TrackWriter(store: tracks); self.send = send }

    func perform(_ effect: MapFeature.Effect) {
        switch effect {
        case .watchLocation(let source): watch(source)
        case .startTrack: write { try $0.start() }
        case .appendToTrack(let points): write { try $0.append(points) }
        case .endTrack(let keep): write { try $0.end(keep: keep) }
        default: return
        }
    }

    /// Runs `work` after the writes asked before; a failure ends the track and is said.
    private func write(_ work: @escaping @Sendable (TrackWriter) throws -> MapFeature.Action?) {
        let tracks = tracks
        writes.async { [weak self] in
            guard let action = tracks.run(work) else { return }
            Task { @UIActor in self?.send(.map(action)) }
        }
    }

    /// Starts watching (once: a second ask while watching changes nothing).
    func watch(_ source: LocationSource) {
        guard watcher == nil else { return }
        switch source {
        case .fixed(let point): send(.map(.location(.fixed(point))))
        case .gpsd(let address):
            let latest = latest
            let watcher = GPSDWatcher(address: address) { status in
                guard let wait = latest.offer(status) else { return }
                Task { @UIActor [weak self] in
                    try? await Task.sleep(for: wait)
                    guard let self, self.watcher != nil, let status = latest.take() else { return }
                    self.send(.map(.location(status)))
                }
            }
            self.watcher = watcher
            watcher.start()
        }
    }

    /// Stops watching (its thread ends within a second) once the track's writes asked for are done.
    func stop() async {
        watcher?.stop()
        watcher = nil
        write { try $0.end(keep: nil) }
        await writes.flush()
    }
}

/// The track being written and how many points it has, for the writes' queue (one piece of work
/// at a time).
final class TrackWriter: Sendable {
    private let store: TrackStore
    private let current = Mutex<(id: String, points: Int)?>(nil)

    init(store: TrackStore) { self.store = store }

    func start() throws -> MapFeature.Action? {
        let track = try store.start(name: "")
        current.withLock { $0 = (track.id, 0) }
        return .trackStarted(id: track.id)
    }

    func append(_ points: [TrackPoint]) throws -> MapFeature.Action? {
        guard let id = current.withLock({ $0?.id }) else { return nil }
        try store.append(points, to: id)
        current.withLock { $0?.points += points.count }
        return nil
    }

    /// Ends the track: kept or removed as asked; nil (the program ending) keeps it if it has points.
    func end(keep: Bool?) throws -> MapFeature.Action? {
        guard let track = current.withLock({ current in defer { current = nil }; return current }) else { return nil }
        if !(keep ?? (track.points > 0)) { try store.remove(track.id) }
        return nil
    }

    /// `work`, whose failure ends the track: an action that says why.
    func run(_ work: (TrackWriter) throws -> MapFeature.Action?) -> MapFeature.Action? {
        do { return try work(self) } catch {
            current.withLock { $0 = nil }
            return .trackNotKept(error.userSentence)
        }
    }
}

/// The latest report not yet delivered, and whether its delivery is scheduled: the watcher's
/// thread offers each one, the UI actor takes the latest when its turn comes.
final class LatestReport: Sendable {
    static let interval = Duration.milliseconds(200)
    private struct Pending {
        var status: LocationStatus?
        var isScheduled = false
        var lastDelivered: ContinuousClock.Instant?
        /// What was delivered last, its times left out.
        var shown: LocationStatus?
    }
    private let pending = Mutex(Pending())

    /// Keeps `status` as the latest; returns how long to wait before delivering when no delivery
    /// is scheduled yet (it is now), nil when one is, or when it shows nothing new (the same
    /// place and fix, only later: a receiver standing still wakes nothing).
    func offer(_ status: LocationStatus) -> Duration? {
        pending.withLock { pending in
            if !pending.isScheduled, status.withoutTimes == pending.shown { return nil }
            pending.status = status
            guard !pending.isScheduled else { return nil }
            pending.isScheduled = true
            guard let last = pending.lastDelivered else { return .zero }
            let since = ContinuousClock.now - last
            return since >= Self.interval ? .zero : Self.interval - since
        }
    }

    func take() -> LocationStatus? {
        pending.withLock { pending in
            defer { pending.status = nil }
            pending.isScheduled = false
            pending.lastDelivered = .now
            pending.shown = pending.status?.withoutTimes ?? pending.shown
            return pending.status
        }
    }
}
