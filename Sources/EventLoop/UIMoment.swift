/// A moment on the UI actor that comes once (the library read, the first frame shown): `wait`
/// returns when `arrive` has been called, at once if it had been, or when `limit` has passed,
/// so nothing waits on a moment that never comes.
@UIActor
public final class UIMoment {
    public private(set) var hasArrived = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(limit: Duration) {
        Task { @UIActor [weak self] in
            try? await Task.sleep(for: limit)
            self?.arrive()
        }
    }

    public func arrive() {
        guard !hasArrived else { return }
        hasArrived = true
        let woken = waiting
        waiting = []
        for continuation in woken { continuation.resume() }
    }

    public func wait() async {
        guard !hasArrived else { return }
        await withCheckedContinuation { waiting.append($0) }
    }
}
