import Foundation
import MapbookCore
import LibraryModel

/// Files written so that a crash or a full disk leaves either the old contents or the new, never a
/// torn mix: write a temporary file beside the target, fsync it, rename it over, fsync the folder.
public enum AtomicFile {
    public static func write(_ data: Data, to path: String) throws(LibraryError) {
        let directory = (path as NSString).deletingLastPathComponent
        try makeDirectory(directory)
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .write(path: path, errno: errno) }
        var failure: Int32?
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var done = 0
            while done < bytes.count {
                let n = Foundation.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { failure = n < 0 ? errno : EIO; return }
                done += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        guard failure == nil else {
            unlink(temporary)
            throw .write(path: path, errno: failure!)
        }
        syncDirectory(directory)
    }

    static func writeJSON<T: Encodable>(_ value: T, to path: String) throws(LibraryError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let data: Data
        do { data = try encoder.encode(value) } catch { throw .corrupt(path: path, detail: "\(error)") }
        try write(data, to: path)
    }

    /// nil when the file does not exist; throws when it exists but cannot be read as `T`.
    static func readJSON<T: Decodable>(_ type: T.Type, from path: String) throws(LibraryError) -> T? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do { return try JSONTreeDecoder.decode(T.self, from: data) } catch {
            throw .corrupt(path: path, detail: "not the JSON mapbook wrote")
        }
    }

    /// `mkdir -p`, keeping errno so a full disk is reported as one.
    static func makeDirectory(_ path: String) throws(LibraryError) {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeDirectory(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw .write(path: path, errno: errno) }
    }

    /// Makes a rename in `directory` survive a power cut.
    static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Renames `from` over `to` and makes it durable.
    static func move(_ from: String, to: String) throws(LibraryError) {
        guard rename(from, to) == 0 else { throw .write(path: to, errno: errno) }
        syncDirectory((to as NSString).deletingLastPathComponent)
    }

    static func size(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
