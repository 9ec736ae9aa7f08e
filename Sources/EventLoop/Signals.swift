import Foundation
import Synchronization

/// The pipe's write end; set once, before any handler is installed, and only read after.
nonisolated(unsafe) private var signalWriteEnd: Int32 = -1

/// Writing one byte to a pipe is all a signal handler may safely do; the UI loop reads the pipe.
private func forwardSignal(_ signal: Int32) {
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalWriteEnd, &byte, 1)
}

/// The one way mapbook hears signals, in every front end and command: the handlers write the
/// signal's number to a pipe that the UI loop polls, so a signal arrives as an ordinary call on the
/// loop's thread, never inside a handler. Routed before ncurses starts, so ncurses leaves them to us.
public enum Signals {
    private static let readEnd = Mutex<Int32?>(nil)
    private static let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)

    /// Sends each of `signals` that arrives to `handle`, on the UI loop's thread; replaces the
    /// handler routed before. False when the pipe cannot be made.
    @discardableResult
    public static func route(_ signals: [Int32], to handle: @escaping @Sendable (Int32) -> Void) -> Bool {
        guard let fd = pipeReadEnd() else { return false }
        handler.withLock { $0 = handle }
        UIEventLoop.shared.watch(fd) {
            for signal in drain(fd) { handler.withLock { $0 }?(signal) }
        }
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
        return true
    }

    /// Gives `signals` back their default actions and stops routing.
    public static func restoreDefaults(_ signals: [Int32]) {
        for signal in signals { _ = Foundation.signal(signal, SIG_DFL) }
        handler.withLock { $0 = nil }
        if let fd = readEnd.withLock({ $0 }) { UIEventLoop.shared.unwatch(fd) }
    }

    /// The pipe's read end, made once per process.
    private static func pipeReadEnd() -> Int32? {
        readEnd.withLock { readEnd in
            if let readEnd { return readEnd }
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return nil }
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            signalWriteEnd = fds[1]
            readEnd = fds[0]
            return fds[0]
        }
    }

    private static func drain(_ fd: Int32) -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 64)
        var received: [Int32] = []
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer.prefix(count).map(Int32.init)
        }
        return received
    }
}
