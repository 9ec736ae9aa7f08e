import AppModel
import EventLoop
import Observation

/// The program: the state, the one update function, and the runtime that performs what it asks.
/// Front ends send it events and watch `state` (it is observable); they never change the state
/// themselves.
@UIActor
@Observable
public final class Program {
    public private(set) var state: AppState
    @ObservationIgnored private let runtime: Runtime
    /// Every event sent, in order, once set (tests read what happened instead of polling for a
    /// state that may come and go between two looks).
    @ObservationIgnored public var transcript: [Event]?

    public init(state: AppState, runtime: Runtime) {
        self.state = state
        self.runtime = runtime
        runtime.attach { [weak self] event in self?.send(event) }
    }

    public func send(_ event: Event) {
        transcript?.append(event)
        switch event {
        case .terminal(.key), .terminal(.mouse), .intent: runtime.noteActivity()
        default: break
        }
        let notice = state.requests.noticeSerial
        for effect in App.update(&state, event) { runtime.perform(effect) }
        // News in the status bar fades: its expiry asked for whenever a new one appears.
        if state.requests.noticeSerial != notice { runtime.perform(.expireNotice(state.requests.noticeSerial)) }
    }

    /// A full screen drawing its first frame: work that frame does not show waits until `shown`
    /// (at most a quarter of a second), so on two cores it does not slow the frame.
    public func holdBackgroundWorkUntilShown() { runtime.holdBackgroundWorkUntilShown() }

    /// The first frame is on the screen.
    public func shown() { runtime.shown() }

    /// How this front end puts text on the clipboard (`Effect.copy`).
    public func useClipboard(_ copy: @escaping @UIActor (String) -> Void) { runtime.clipboard = copy }

    /// Stops downloads (keeping what arrived, to resume next time) and everything else running.
    public func shutdown() async { await runtime.shutdown() }

    /// Returns once the state has changed: for front ends that react to changes as they happen
    /// (the plain mode) rather than redraw a screen.
    public func nextChange() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking { _ = state } onChange: { continuation.resume() }
        }
    }
}
