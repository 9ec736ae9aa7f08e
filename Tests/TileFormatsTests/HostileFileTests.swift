import Foundation
import SharedTestData
import Testing
@testable import TileFormats

/// Packages and caches on disk that are not what they claim: a FIFO or device where a file should
/// be never hangs mapbook, and a symbolic link never leads it out of the folder it opened.
@Suite struct HostileFileTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-hostile-files-\(UUID())").path

    init() throws { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }

    /// Opens `path` on another thread and waits at most five seconds: a hang fails the test
    /// instead of freezing the run.
    func openQuickly(_ path: String) async -> Result<Int64, TileFormatError>? {
        await withCheckedContinuation { continuation in
            let once = Once(continuation)
            Thread.detachNewThread {
                once.resume(Result { () throws(TileFormatError) in try FileByteSource(path: path).size })
            }
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 5)
                once.resume(nil)
            }
        }
    }

    @Test func aFIFOOrDeviceIsRefusedAtOnce() async throws {
        let fifo = folder + "/package.vtpk"
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, "/dev/zero"] {
            guard let result = await openQuickly(path) else {
                Issue.record("opening \(path) hung")
                continue
            }
            #expect(throws: TileFormatError.cannotOpen(path: path, reason: "not a regular file")) { try result.get() }
        }
        #expect(throws: TileFormatError.self) { try FileByteSource.contents(of: fifo, limit: 1 << 20) }
    }

    @Test func aCacheWhoseConfigurationIsAFIFOIsRefused() throws {
        try FileManager.default.createDirectory(atPath: folder + "/_alllayers", withIntermediateDirectories: true)
        #expect(mkfifo(folder + "/conf.xml", 0o600) == 0)
        #expect(throws: TileFormatError.self) { try TileCacheFolder(path: folder) }
    }

    @Test(.enabled(if: SharedData.available, SharedData.skipMessage))
    func aBundleThatIsALinkToAFIFOOrOutOfTheFolderIsNotRead() throws {
        let sample = SharedData.url("raster/compactcache-v2-esri-sample").path
        try FileManager.default.copyItem(atPath: sample + "/conf.xml", toPath: folder + "/conf.xml")
        for level in 0...1 { try FileManager.default.createDirectory(atPath: folder + "/_alllayers/L0\(level)", withIntermediateDirectories: true) }
        let fifo = folder + "/outside-fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/_alllayers/L00/R0000C0000.bundle", withDestinationPath: fifo)
        try FileManager.default.createSymbolicLink(atPath: folder + "/_alllayers/L01/R0000C0000.bundle",
                                                   withDestinationPath: sample + "/_alllayers/L01/R0000C0000.bundle")
        let cache = try TileCacheFolder(path: folder)
        // The FIFO is inside the folder but no plain file: refused, not waited on.
        #expect(throws: TileFormatError.self) { try cache.tile(z: 0, x: 0, y: 0) }
        // The real bundle is outside the folder: not read.
        #expect(try cache.tile(z: 1, x: 0, y: 0) == nil)
    }
}

/// Resumes a continuation once, whichever thread comes first.
private final class Once<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?
    init(_ continuation: CheckedContinuation<T, Never>) { self.continuation = continuation }
    func resume(_ value: T) {
        let waiting = lock.withLock { () -> CheckedContinuation<T, Never>? in defer { continuation = nil }; return continuation }
        waiting?.resume(returning: value)
    }
}
