import Foundation
import Synchronization
import TileFormats

/// Decides whether a downloaded file is the package it should be: the size the portal listed, and,
/// for the zip-based packages (.vtpk, .tpkx, .tpk, .mmpk), every entry's CRC-32. Portals publish no
/// whole-file checksum, so the package's own checksums are the ones known.
enum PackageVerifier {
    /// Returns how the file was checked; throws when it fails.
    /// `streamed` holds CRCs computed while the file downloaded; entries it covers are not read again.
    @discardableResult
    static func verify(path: String, name: String, expectedSize: Int64?, mustBeZip: Bool,
                       streamed: ZipStreamChecksums? = nil) throws(LibraryError) -> String {
        guard let size = AtomicFile.size(of: path) else { throw .damaged(package: name, detail: "the file is missing") }
        if let expectedSize, expectedSize > 0, size != expectedSize {
            throw .sizeMismatch(package: name, expected: expectedSize, actual: size)
        }
        let source: FileByteSource
        do { source = try FileByteSource(path: path) } catch { throw .damaged(package: name, detail: error.description) }
        let magic = size >= 4 ? (try? source.read(at: 0, count: 4)) : nil
        guard magic == Data([0x50, 0x4B, 0x03, 0x04]) else {
            if mustBeZip { throw .damaged(package: name, detail: "it is not a package: no zip header") }
            return "size"
        }
        do {
            try ZipArchive(source: source).verifyChecksums(streamed: streamed)
        } catch {
            throw .damaged(package: name, detail: error.description)
        }
        return "zip CRC-32"
    }

    /// Why a tile package that verified cannot be drawn, in one sentence; nil when it can (or when it
    /// is not a tile package). It must open as a tile source and the tiles of its top level must
    /// read as what it says it holds: a package whose checksums pass may still be in a form no
    /// reader here knows.
    static func drawProblem(path: String, fileName: String) -> String? {
        guard ["vtpk", "tpkx", "tpk"].contains((fileName as NSString).pathExtension.lowercased()) else { return nil }
        do {
            let package = try TilePackage(path: path)
            guard let top = package.info.levels.first else { return "it holds no levels of tiles" }
            let positions = try package.tilePositions(level: top.level)
            guard !positions.isEmpty else { return "its top level holds no tiles" }
            for position in positions.prefix(4) {
                guard let data = try package.tile(level: top.level, row: position.row, column: position.column) else { continue }
                if case .undecodable(let reason) = TileContent.classify(data, vector: package.info.isVector) {
                    return "a tile of its top level is unreadable (\(reason))"
                }
            }
            return nil
        } catch {
            return error.description
        }
    }

    /// Zip-based package kinds must be zips: anything else is damaged, whatever its size.
    static func mustBeZip(_ fileName: String) -> Bool {
        ["vtpk", "tpkx", "tpk", "mmpk"].contains((fileName as NSString).pathExtension)
    }
}

/// A package's zip CRC-32s computed while it downloads: fed from the transfer thread, read once the
/// download is over.
final class StreamingChecksums: Sendable {
    private let checksums = Mutex(ZipStreamChecksums())

    /// Starts with the `count` bytes already in the file at `path` (a resumed download): those are
    /// read once now, the rest are seen as they arrive.
    init(resumingFrom path: String, count: Int64) {
        guard count > 0, let source = try? FileByteSource(path: path) else { return }
        var offset: Int64 = 0
        while offset < count, let piece = try? source.read(at: offset, count: Int(min(4 << 20, count - offset))), !piece.isEmpty {
            checksums.withLock { sums in piece.withUnsafeBytes { sums.consume($0, at: offset) } }
            offset += Int64(piece.count)
        }
    }

    func consume(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        checksums.withLock { $0.consume(bytes, at: offset) }
    }

    var result: ZipStreamChecksums { checksums.withLock { $0 } }
}
