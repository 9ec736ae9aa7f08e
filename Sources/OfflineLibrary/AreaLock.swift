import Foundation
import LibraryModel

/// The one writer of an area's folder: an exclusive `flock` on `<area>/.lock`, held by whoever
/// downloads or removes the area, in this process or another. The holder's pid is written into the
/// file so a second mapbook can say who has it. The kernel drops the lock when its holder dies, so a
/// killed mapbook never leaves an area locked.
final class AreaLock {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    enum Attempt {
        case acquired(AreaLock)
        /// Another open of the file holds it; `pid` as its holder wrote it.
        case busy(pid: Int32?)
    }

    /// "Busy" is said only once the lock has stayed held this long. A lock let go a moment ago may
    /// still be held for a moment by a process this one is starting: between its fork and its exec
    /// the child shares the open file, close-on-exec or not (seen on a loaded machine).
    static let patience: Duration = .seconds(1)

    /// Tries until it has the lock, or `patience` has passed (blocking, for that rare moment).
    static func tryAcquire(areaDirectory: String, patience: Duration = AreaLock.patience) throws(LibraryError) -> Attempt {
        let deadline = ContinuousClock.now + patience
        while true {
            let attempt = try tryOnce(areaDirectory: areaDirectory)
            if case .busy = attempt, ContinuousClock.now < deadline {
                usleep(25_000)
                continue
            }
            return attempt
        }
    }

    private static func tryOnce(areaDirectory: String) throws(LibraryError) -> Attempt {
        try AtomicFile.makeDirectory(areaDirectory)
        let path = areaDirectory + "/.lock"
        // Never through a link: a `.lock` linked to another file would have that file truncated.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .write(path: path, errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = pid(in: fd)
            close(fd)
            guard code == EWOULDBLOCK else { throw .write(path: path, errno: code) }
            return .busy(pid: holder)
        }
        // Who holds it, for the sentence a second mapbook prints; not needed for the lock itself.
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = pwrite(fd, text, text.count, 0) }
        return .acquired(AreaLock(fd: fd))
    }

    /// Acquires the lock, or throws `LibraryError.busy` naming the holder; with `wait`, polls until
    /// the holder lets go (or the task is cancelled).
    static func acquire(areaDirectory: String, title: String, wait: Bool) async throws -> AreaLock {
        let deadline = ContinuousClock.now + patience
        while true {
            switch try tryOnce(areaDirectory: areaDirectory) {
            case .acquired(let lock): return lock
            case .busy(let pid):
                guard wait || ContinuousClock.now < deadline else { throw LibraryError.busy(title: title, pid: pid) }
                try await Task.sleep(for: .milliseconds(wait ? 250 : 25))
            }
        }
    }

    private static func pid(in fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
