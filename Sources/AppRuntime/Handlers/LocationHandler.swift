import AppModel
import EventLoop
import Foundation
import Location
import Synchronization

/// Where this device is: gpsd watched on a thread of its own (`GPSDWatcher`), or the config's
/// fixed position. Reports reach the model at most five times a second, the latest winning: a
/// 10 Hz or 100 Hz receiver wakes the screen no more than that.
@UIActor
final class LocationHandler {
    private let send: EventSink
    private var watcher: GPSDWatcher?
    private let latest = LatestReport()

    init(send: EventSink) { self.send = send }

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

    /// Stops watching; its thread ends within a second.
    func stop() {
        watcher?.stop()
        watcher = nil
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
    }
    private let pending = Mutex(Pending())

    /// Keeps `status` as the latest; returns how long to wait before delivering when no delivery
    /// is scheduled yet (it is now), nil when one is.
    func offer(_ status: LocationStatus) -> Duration? {
        pending.withLock { pending in
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
            return pending.status
        }
    }
}
