import CCrypto
import Foundation
import LibraryModel
import Synchronization

/// SHA-256 of a file, by libcrypto: what a fleet mirror lists for each of its files and a device
/// checks what it took from the mirror against.
enum FileDigest {
    /// Lowercase hex; throws when the file cannot be read.
    static func sha256(path: String) throws(LibraryError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .corrupt(path: path, detail: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard let context = mb_sha256_new() else { throw .corrupt(path: path, detail: "libcrypto (libssl3) could not be loaded to hash it") }
        defer { mb_sha256_free(context) }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer, chunk)
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw .corrupt(path: path, detail: String(cString: strerror(errno))) }
            if n == 0 { break }
            mb_sha256_update(context, buffer, n)
        }
        var digest = [UInt8](repeating: 0, count: Int(MB_SHA256_LENGTH))
        guard mb_sha256_final(context, &digest) == 1 else { throw .corrupt(path: path, detail: "libcrypto could not finish its digest") }
        return hex(digest)
    }

    /// Lowercase hex of bytes in memory (a thumbnail).
    static func sha256(_ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(MB_SHA256_LENGTH))
        let done = data.withUnsafeBytes { bytes in mb_sha256(bytes.baseAddress, bytes.count, &digest) }
        return done == 1 ? hex(digest) : ""
    }

    static func hex(_ digest: [UInt8]) -> String { digest.map { String(format: "%02x", $0) }.joined() }
}

/// SHA-256 of a file as its bytes arrive, in order from its first: the download's read-back feeds
/// it, so the file is not read again to be hashed. Bytes that do not continue where the last ended
/// (a read-back that failed) leave it without an answer, and the file is hashed from disk instead.
final class StreamingSHA256: Sendable {
    private struct State: @unchecked Sendable {
        // Used only under the lock.
        var context: OpaquePointer?
        var next: Int64 = 0
        var broken = false
    }
    private let state: Mutex<State>

    init() {
        let context = mb_sha256_new()
        state = Mutex(State(context: context, broken: context == nil))
    }

    deinit { state.withLock { mb_sha256_free($0.context) } }

    func consume(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        state.withLock { state in
            guard !state.broken, offset == state.next, let context = state.context else {
                state.broken = true
                return
            }
            if let base = bytes.baseAddress { mb_sha256_update(context, base, bytes.count) }
            state.next += Int64(bytes.count)
        }
    }

    /// Lowercase hex of everything consumed, when it was all of the file's `size` bytes in order.
    func result(size: Int64) -> String? {
        state.withLock { state in
            guard !state.broken, state.next == size, let context = state.context else { return nil }
            var digest = [UInt8](repeating: 0, count: Int(MB_SHA256_LENGTH))
            state.broken = true
            return mb_sha256_final(context, &digest) == 1 ? FileDigest.hex(digest) : nil
        }
    }
}
