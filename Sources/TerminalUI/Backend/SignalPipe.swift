import Foundation

/// The signal pipe's ends; set once, before any handler is installed.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
nonisolated(unsafe) private var signalPipeReadEnd: Int32 = -1

/// Writing one byte to a pipe is all a signal handler may safely do; the UI loop reads the pipe.
private func forwardSignal(_ signal: Int32) {
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalPipeWriteEnd, &byte, 1)
}

/// Turns SIGWINCH, SIGINT, SIGTERM and SIGHUP into bytes on a pipe the UI loop polls, so resizes
/// and requests to stop arrive as ordinary events on the UI thread. Installed before ncurses
/// starts, so ncurses leaves these signals to us.
enum SignalPipe {
    static let signals: [Int32] = [SIGWINCH, SIGINT, SIGTERM, SIGHUP]

    /// Installs the handlers (once per process); returns the read end.
    static func install() -> Int32? {
        if signalPipeReadEnd >= 0 { return signalPipeReadEnd }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        signalPipeWriteEnd = fds[1]
        signalPipeReadEnd = fds[0]
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardSignal
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
        return fds[0]
    }

    /// The signals received since the last call.
    static func drain(_ fd: Int32) -> [Int32] {
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
