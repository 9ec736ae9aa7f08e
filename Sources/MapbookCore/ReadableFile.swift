import Foundation

/// The one way mapbook opens a file it reads by path: without blocking (a FIFO or a device where a
/// package should be would hang a plain `open` or its reads for ever), then refused unless `fstat`
/// says it is a plain file. Readers that need a path of their own (SQLite) are given
/// `/proc/self/fd/N`, which names this very file whatever is done to the path meanwhile.
public final class ReadableFile: Sendable {
    public let path: String
    public let descriptor: Int32
    public let size: Int64

    /// Why a file could not be opened: its path (cleaned for the terminal) and the reason.
    public struct OpenError: Error, Sendable, Equatable, UserFacingError {
        public let path: String
        public let reason: String
        public var userMessage: String { "Cannot open \(path): \(reason)." }
    }

    /// `followingLinks: false` refuses a link in the file's place (for files in folders mapbook writes).
    public init(path: String, followingLinks: Bool = true) throws(OpenError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw OpenError(path: Self.shown(path), reason: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw OpenError(path: Self.shown(path), reason: "not a regular file")
        }
        self.path = path
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    public func read(at offset: Int64, upTo count: Int) -> Data {
        var data = Data(count: max(count, 0))
        let got = data.withUnsafeMutableBytes { raw -> Int in
            var done = 0
            while done < raw.count {
                let n = pread(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            return done
        }
        return data.prefix(got)
    }

    /// A path that opens this same file, for a library that opens by path itself; the file's own
    /// path where `/proc` is not mounted.
    public var stablePath: String {
        let proc = "/proc/self/fd/\(descriptor)"
        return access(proc, R_OK) == 0 ? proc : path
    }

    private static func shown(_ path: String) -> String { TerminalText.sanitizedLine(path, maxLength: 300) }
}
