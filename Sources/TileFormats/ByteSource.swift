import Foundation
import MapbookCore

/// Random access to bytes that stay on disk: tiles are read in place by offset, never by loading a
/// whole bundle or package into memory.
public protocol ByteSource: Sendable {
    var size: Int64 { get }
    /// Exactly `count` bytes at `offset`; throws when they are not all there.
    func read(at offset: Int64, count: Int) throws(TileFormatError) -> Data
}

/// A file read with `pread`, safe to share between threads. Only regular files, opened as every
/// file mapbook reads is (`ReadableFile`: without blocking, refused unless it is a plain file).
public final class FileByteSource: ByteSource {
    public let path: String
    public let size: Int64
    private let file: ReadableFile

    /// A small file read whole (a cache's `conf.xml`, a loose tile), refused above `limit` bytes.
    public static func contents(of path: String, limit: Int) throws(TileFormatError) -> Data {
        let source = try FileByteSource(path: path)
        guard source.size <= Int64(limit) else { throw .malformed("\(path) is larger than \(limit) bytes") }
        return try source.read(at: 0, count: Int(source.size))
    }


    public init(path: String) throws(TileFormatError) {
        do { file = try ReadableFile(path: path) } catch { throw .cannotOpen(path: error.path, reason: error.reason) }
        self.path = path
        size = file.size
    }

    public func read(at offset: Int64, count: Int) throws(TileFormatError) -> Data {
        try checkRange(offset: offset, count: count, within: size, of: path)
        let data = file.read(at: offset, upTo: count)
        guard data.count == count else { throw .truncated("\(path): short read at \(offset)") }
        return data
    }
}

/// A window onto part of another source, e.g. a stored entry inside a zip package.
public struct ByteSourceSlice: ByteSource {
    public let base: any ByteSource
    public let start: Int64
    public let size: Int64

    public init(_ base: any ByteSource, start: Int64, size: Int64) throws(TileFormatError) {
        try checkRange(offset: start, count: size, within: base.size, of: "a package")
        self.base = base; self.start = start; self.size = size
    }

    public func read(at offset: Int64, count: Int) throws(TileFormatError) -> Data {
        try checkRange(offset: offset, count: count, within: size, of: "a \(size)-byte part")
        return try base.read(at: start + offset, count: count)
    }
}

/// Every read is checked before anything is allocated, so a corrupt offset or size costs nothing.
private func checkRange(offset: Int64, count: some BinaryInteger, within size: Int64, of what: String) throws(TileFormatError) {
    guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
        throw .truncated("\(what): \(count) bytes at \(offset) lie past its end (\(size) bytes)")
    }
}

/// What may be read of a folder being walked: its own files, and symbolic links that resolve inside
/// it; a link that leads elsewhere (or nowhere) is not read. The folder is resolved once; only
/// links are resolved per file. Walk with `FolderBoundary.keys` so each file's kind comes with it.
public struct FolderBoundary: Sendable {
    /// The properties a walk should fetch for `admits`.
    public static let keys: [URLResourceKey] = [.isSymbolicLinkKey]
    private let root: String?

    public init(_ folder: String) {
        root = realpath(folder, nil).map { resolved in
            defer { free(resolved) }
            let base = String(cString: resolved)
            return base.hasSuffix("/") ? base : base + "/"
        }
    }

    public func admits(_ file: URL) -> Bool {
        guard (try? file.resourceValues(forKeys: [.isSymbolicLinkKey]))?.isSymbolicLink == true else { return true }
        guard let root, let resolved = realpath(file.path, nil) else { return false }
        defer { free(resolved) }
        return String(cString: resolved).hasPrefix(root)
    }
}
