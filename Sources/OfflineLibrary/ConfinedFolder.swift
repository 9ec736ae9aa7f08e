import Foundation
import LibraryModel
import MapbookCore

/// A folder mapbook writes only inside of, whatever links are planted in it (or in a copy of it
/// made with `rsync -a`): every folder below it is opened from its parent's descriptor without
/// following a link, and reached afterwards through `/proc/self/fd/N`, which names that very
/// folder however its path is changed meanwhile. A link where a folder should be is refused in a
/// sentence; the writes themselves (`AtomicFile`, downloads, the lock) never follow a link either.
final class ConfinedFolder: Sendable {
    /// The folder as the user named it, for sentences.
    let shown: String
    private let root: FolderHandle

    /// Makes the folder when missing (the folder itself may be a link: it is the user's choice).
    init(_ path: String) throws(LibraryError) {
        shown = path
        try AtomicFile.makeDirectory(path)
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .write(path: path, errno: errno) }
        root = FolderHandle(fd: fd, shown: path)
    }

    /// The folder `relative` below this one (`""` for itself), each part made when missing.
    func directory(_ relative: String) throws(LibraryError) -> FolderHandle {
        var current = root
        for part in relative.split(separator: "/") where part != "." {
            guard part != ".." else { throw .write(path: shown + "/" + relative, errno: EPERM) }
            let shown = current.shown + "/" + part
            if mkdirat(current.fd, String(part), 0o755) != 0, errno != EEXIST { throw .write(path: shown, errno: errno) }
            let fd = openat(current.fd, String(part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw .write(path: shown, errno: errno == ENOTDIR ? ELOOP : errno) }
            current = FolderHandle(fd: fd, shown: shown)
        }
        return current
    }

    /// The size of the plain file at `relative`; nil for anything else (a link, a FIFO, nothing).
    func size(of relative: String) -> Int64? {
        let folder = (relative as NSString).deletingLastPathComponent, name = (relative as NSString).lastPathComponent
        guard let handle = try? directory(folder) else { return nil }
        var info = stat()
        guard fstatat(handle.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Removes every file below `relative` whose path (relative to this folder) `keep` refuses,
    /// and the folders left empty; links are removed as links, never followed. Returns the paths
    /// removed.
    func prune(_ relative: String, keep: (String) -> Bool) -> [String] {
        guard let top = try? directory(relative) else { return [] }
        var removed: [String] = []
        /// Whether the folder is left empty.
        func walk(_ folder: FolderHandle, _ prefix: String) -> Bool {
            var empty = true
            for (name, isFolder) in folder.entries() {
                let path = prefix + "/" + name
                if isFolder {
                    let fd = openat(folder.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    let emptied = fd >= 0 && walk(FolderHandle(fd: fd, shown: folder.shown + "/" + name), path)
                    if !(emptied && unlinkat(folder.fd, name, AT_REMOVEDIR) == 0) { empty = false }
                } else if !keep(path), unlinkat(folder.fd, name, 0) == 0 {
                    removed.append(path)
                } else {
                    empty = false
                }
            }
            return empty
        }
        _ = walk(top, relative)
        return removed.sorted()
    }
}

/// An open folder: its descriptor, the path that reaches it (`/proc/self/fd/N`, valid while this
/// lives), and its path as the user knows it.
final class FolderHandle: Sendable {
    let fd: Int32
    let shown: String

    init(fd: Int32, shown: String) { self.fd = fd; self.shown = shown }

    deinit { close(fd) }

    /// Where `name` in this folder is, for code that writes by path.
    func path(_ name: String) -> String { "/proc/self/fd/\(fd)/" + name }

    /// A failure naming a file here by the path the user knows, not `/proc`'s.
    func shown(_ error: LibraryError) -> LibraryError {
        guard case .write(let path, let code) = error else { return error }
        return .write(path: path.replacingOccurrences(of: "/proc/self/fd/\(fd)", with: shown), errno: code)
    }

    /// Its entries, and whether each is a folder (a link is never one).
    func entries() -> [(String, Bool)] {
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else { return [] }
        defer { closedir(stream) }
        rewinddir(stream)
        var out: [(String, Bool)] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            out.append((name, (info.st_mode & S_IFMT) == S_IFDIR))
        }
        return out
    }
}
