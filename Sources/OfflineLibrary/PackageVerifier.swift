import Foundation
import TileFormats

/// Decides whether a downloaded file is the package it should be: the size the portal listed, and,
/// for the zip-based packages (.vtpk, .tpkx, .tpk, .mmpk), every entry's CRC-32. Portals publish no
/// whole-file checksum, so the package's own checksums are the ones known.
enum PackageVerifier {
    /// Returns how the file was checked; throws when it fails.
    @discardableResult
    static func verify(path: String, name: String, expectedSize: Int64?, mustBeZip: Bool) throws(LibraryError) -> String {
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
            try ZipArchive(source: source).verifyChecksums()
        } catch {
            throw .damaged(package: name, detail: error.description)
        }
        return "zip CRC-32"
    }

    /// Zip-based package kinds must be zips: anything else is damaged, whatever its size.
    static func mustBeZip(_ fileName: String) -> Bool {
        ["vtpk", "tpkx", "tpk", "mmpk"].contains((fileName as NSString).pathExtension)
    }
}
