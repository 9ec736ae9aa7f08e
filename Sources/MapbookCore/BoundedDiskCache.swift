import Foundation
import Synchronization

/// Files kept in a folder, at most `limit` bytes: when over, the least recently used go first
/// (reading a file marks it used). Writes are atomic (a temporary file, then a rename), so a
/// reader — in this process or another — sees a whole file or none; a failed write is only a
/// missed cache. The map tiles and the portal answers are kept this way. Files are 0600 and folders
/// 0700: answers to signed-in requests may list private items.
public final class BoundedDiskCache: Sendable {
    public let directory: String
    public let limit: Int64
    /// The file names it keeps end so; others in the folder are left alone.
    private let suffix: String
    /// Bytes in the cache, counted when it first writes (nil until then); held while pruning, so
    /// two prunes never interleave.
    private let size: Mutex<Int64?>

    public init(directory: String, limit: Int64, suffix: String) {
        self.directory = directory
        self.limit = limit
        self.suffix = suffix
        // The folder is walked when the cache first writes, not here: opening a full cache is then
        // free, and a start that only reads (an offline first frame) pays nothing for it.
        size = Mutex(nil)
    }

    /// A temporary file (`<name><suffix>.tmp…`) older than this was being written when a process
    /// died or the disk filled: no writer is coming back for it.
    static let orphanAge: TimeInterval = 600

    /// A 64-bit FNV-1a hash of `text`, in hexadecimal: a file name for a key of any length.
    public static func name(for text: String) -> String {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return String(hash, radix: 16)
    }

    /// The file at `relativePath` (which must end with the suffix), marked as used.
    public func read(_ relativePath: String) -> Data? {
        let path = directory + "/" + relativePath
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        utimes(path, nil)
        return data
    }

    public func write(_ relativePath: String, _ data: Data) {
        guard let temporary = temporaryPath(for: relativePath) else { return }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        let written = data.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == data.count else { unlink(temporary); return }
        adopt(temporary, as: relativePath)
    }

    /// Deletes every file the cache keeps.
    public func removeAll() {
        size.withLock { size in
            for file in Self.files(in: directory, suffix: suffix) { unlink(file.path) }
            size = 0
        }
    }

    /// A fresh path beside where `relativePath` goes (its folder made), for a file written in
    /// pieces and then handed to `adopt`; nil if the folder cannot be made.
    public func temporaryPath(for relativePath: String) -> String? {
        let target = directory + "/" + relativePath
        let folder = (target as NSString).deletingLastPathComponent
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])) != nil else { return nil }
        return target + ".tmp\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Moves a finished file written at `temporary` in as `relativePath` (atomically), then keeps
    /// the cache within its limit.
    public func adopt(_ temporary: String, as relativePath: String) {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: temporary))?[.size] as? Int ?? 0
        guard rename(temporary, directory + "/" + relativePath) == 0 else { unlink(temporary); return }
        let over = size.withLock { size in
            // The first write walks the folder once (the file just moved in counted with the rest),
            // removing temporary files no writer is coming back for.
            let total = size.map { $0 + Int64(bytes) }
                ?? Self.files(in: directory, suffix: suffix, removingOrphans: true).reduce(0) { $0 + $1.size }
            size = total
            return total > limit
        }
        if over { prune() }
    }

    /// Where `relativePath` is, marked as used; nil when it is not there.
    public func existingPath(_ relativePath: String) -> String? {
        let path = directory + "/" + relativePath
        guard utimes(path, nil) == 0 else { return nil }
        return path
    }

    public func remove(_ relativePath: String) { unlink(directory + "/" + relativePath) }

    /// What a cache folder holds (its files ending with `suffix`): files, bytes, and the oldest and
    /// newest use. Read without opening the cache, which would walk the folder once more.
    public static func summary(of directory: String, suffix: String) -> (files: Int, bytes: Int64, oldest: Date?, newest: Date?) {
        let files = files(in: directory, suffix: suffix)
        return (files.count, files.reduce(0) { $0 + $1.size }, files.map(\.used).min(), files.map(\.used).max())
    }

    /// Deletes the least recently used files until the cache is at three quarters of its limit.
    private func prune() {
        size.withLock { size in
            var files = Self.files(in: directory, suffix: suffix)
            files.sort { $0.used < $1.used }
            var total = files.reduce(0) { $0 + $1.size }
            for file in files where total > limit * 3 / 4 {
                if unlink(file.path) == 0 { total -= file.size }
            }
            size = total
        }
    }

    /// The files kept; with `removingOrphans`, temporary files older than `orphanAge` are deleted on
    /// the way.
    private static func files(in directory: String, suffix: String, removingOrphans: Bool = false) -> [(path: String, size: Int64, used: Date)] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var result: [(String, Int64, Date)] = []
        let cutoff = Date().addingTimeInterval(-orphanAge)
        while let relative = walker.nextObject() as? String {
            if removingOrphans, relative.contains(suffix + ".tmp") {
                if let modified = walker.fileAttributes?[.modificationDate] as? Date, modified < cutoff { unlink(directory + "/" + relative) }
                continue
            }
            guard relative.hasSuffix(suffix) else { continue }
            let path = directory + "/" + relative
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { continue }
            result.append((path, (attributes[.size] as? Int).map(Int64.init) ?? 0, attributes[.modificationDate] as? Date ?? .distantPast))
        }
        return result
    }
}
