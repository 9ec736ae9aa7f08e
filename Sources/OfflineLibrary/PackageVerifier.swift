import Foundation
import Geodatabase
import MapbookCore
import Synchronization
import TileFormats
import LibraryModel

/// What reading a tile package's tiles found. Damage is counted, not fatal: the map draws from
/// the levels around a damaged tile, so a package "cannot be drawn" only when no level can.
public struct TileCheck: Sendable, Equatable {
    /// Tiles read, and those damaged among them, with their levels.
    public var checked = 0, damaged = 0
    public var damagedLevels: [Int] = []
    /// Why nothing of it can be drawn; nil when some level can.
    public var drawProblem: String?

    /// "2 of 144 tiles damaged (levels 0, 1)"; nil when none is.
    public var damageSummary: String? {
        guard damaged > 0 else { return nil }
        let levels = damagedLevels.map(String.init).joined(separator: ", ")
        return "\(damaged) of \(checked) tiles damaged (level\(damagedLevels.count == 1 ? "" : "s") \(levels))"
    }
}

/// Decides whether a downloaded file is the package it should be: the size the portal listed, and,
/// for the zip-based packages (.vtpk, .tpkx, .tpk, .mmpk), every entry's CRC-32; for a geodatabase,
/// that it opens as one and SQLite finds its pages whole. Portals publish no
/// whole-file checksum, so the package's own checksums are the ones known.
enum PackageVerifier {
    /// Returns how the file was checked; throws when it fails. `fileName` (the package's name in the
    /// library) says what it must be. `streamed` holds CRCs computed while the file downloaded;
    /// entries it covers are not read again.
    @discardableResult
    static func verify(path: String, name: String, expectedSize: Int64?, fileName: String,
                       streamed: ZipStreamChecksums? = nil) throws(LibraryError) -> String {
        guard let size = AtomicFile.size(of: path) else { throw .damaged(package: name, detail: "the file is missing") }
        if let expectedSize, expectedSize > 0, size != expectedSize {
            throw .sizeMismatch(package: name, expected: expectedSize, actual: size)
        }
        let source: FileByteSource
        do { source = try FileByteSource(path: path) } catch { throw .damaged(package: name, detail: error.description) }
        let magic = size >= 4 ? (try? source.read(at: 0, count: 4)) : nil
        guard magic == Data([0x50, 0x4B, 0x03, 0x04]) else {
            if mustBeZip(fileName) { throw .damaged(package: name, detail: "it is not a package: no zip header") }
            guard (fileName as NSString).pathExtension == "geodatabase" else { return "size" }
            guard Geodatabase.isSQLite(path: path) else { throw .damaged(package: name, detail: "it is not a geodatabase: no SQLite header") }
            // A geodatabase has no checksums: SQLite's own check of its pages and indexes stands in.
            let damage: String?
            do { damage = try Geodatabase(path: path, name: name, limits: .verification).damage() } catch {
                throw .damaged(package: name, detail: error.userSentence)
            }
            if let damage { throw .damaged(package: name, detail: "its database is damaged (\(TerminalText.sanitizedLine(damage, maxLength: 120)))") }
            return "size, SQLite check"
        }
        do {
            try ZipArchive(source: source).verifyChecksums(streamed: streamed)
        } catch {
            throw .damaged(package: name, detail: error.description)
        }
        return "zip CRC-32"
    }

    /// Packages up to this size have every tile read when they arrive (a raster tile's check is its
    /// header; a vector tile is decoded); larger ones a few tiles of each level.
    static let wholeCheckLimit: Int64 = 64 << 20

    /// Checks a tile package that verified: it must open as a tile source and some level's tiles
    /// must read as what it says it holds (a package whose checksums pass may still be in a form
    /// no reader here knows). Nil for files that are not tile packages.
    static func checkTiles(path: String, fileName: String, whole wholeAsked: Bool = false) -> TileCheck? {
        guard ["vtpk", "tpkx", "tpk"].contains((fileName as NSString).pathExtension.lowercased()) else { return nil }
        do {
            let package = try TilePackage(path: path)
            guard !package.info.levels.isEmpty else { return TileCheck(drawProblem: "it holds no levels of tiles") }
            let whole = wholeAsked || ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0) <= wholeCheckLimit
            let result = try package.verifyTiles(perLevel: whole ? nil : 4)
            var check = TileCheck(checked: result.checked, damaged: result.damaged.count)
            check.damagedLevels = Array(Set(result.damaged.map(\.level))).sorted()
            if result.checked == 0 {
                check.drawProblem = "it holds no tiles"
            } else if result.damaged.count == result.checked {
                check.drawProblem = "none of its tiles can be read (\(result.damaged[0].reason))"
            }
            return check
        } catch {
            return TileCheck(drawProblem: error.description)
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
    /// The whole file's SHA-256 too, when asked for.
    let sha256: StreamingSHA256?

    /// Starts with the `count` bytes already in the file at `path` (a resumed download): those are
    /// read once now, the rest are seen as they arrive.
    init(resumingFrom path: String, count: Int64, hashing: Bool = false) {
        sha256 = hashing ? StreamingSHA256() : nil
        guard count > 0, let source = try? FileByteSource(path: path) else { return }
        var offset: Int64 = 0
        while offset < count, let piece = try? source.read(at: offset, count: Int(min(4 << 20, count - offset))), !piece.isEmpty {
            piece.withUnsafeBytes { consume($0, at: offset) }
            offset += Int64(piece.count)
        }
    }

    func consume(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        checksums.withLock { $0.consume(bytes, at: offset) }
        sha256?.consume(bytes, at: offset)
    }

    var result: ZipStreamChecksums { checksums.withLock { $0 } }
}
