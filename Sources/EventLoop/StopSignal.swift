import Foundation
import Synchronization

/// The signal that asked the front end to stop (SIGINT, SIGTERM, SIGHUP), kept so the command
/// can end with 128 + its number, as shells and scripts expect: a browser stopped by a signal
/// mid-download has not finished its work, and must not say it did with exit status 0.
public enum StopSignal {
    private static let received = Mutex<Int32?>(nil)

    /// Records `signal`; the first one counts.
    public static func record(_ signal: Int32) {
        received.withLock { if $0 == nil { $0 = signal } }
    }

    /// The signal received, if one was.
    public static var signal: Int32? { received.withLock { $0 } }

    /// 128 + the signal's number, when one was received.
    public static var exitStatus: Int32? { signal.map { 128 + $0 } }
}
