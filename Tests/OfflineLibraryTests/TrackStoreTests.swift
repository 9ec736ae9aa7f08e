import Foundation
import Geometry
import Location
import Testing
@testable import OfflineLibrary

/// Tracks on disk: appended a line a point and flushed, read back whatever a crash left.
@Suite struct TrackStoreTests {
    static func store() -> TrackStore {
        TrackStore(root: FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-tracks-\(UUID())").path)
    }

    static func point(_ index: Int) -> TrackPoint {
        TrackPoint(position: GeoPoint(longitude: -68.2 + Double(index) * 0.001, latitude: 44.38), altitude: 10, accuracy: 3,
                   time: Date(timeIntervalSince1970: 1_780_000_000 + Double(index)))
    }

    @Test func pointsAppendedAreReadBackInOrder() throws {
        let store = Self.store()
        defer { try? FileManager.default.removeItem(atPath: store.folder) }
        let track = try store.start(name: "Morning walk", now: Date(timeIntervalSince1970: 1_780_000_000))
        try store.append([Self.point(0), Self.point(1)], to: track.id)
        try store.append([Self.point(2)], to: track.id)
        let read = try store.find(String(track.id.prefix(8)))
        #expect(read.track.name == "Morning walk" && read.track.points == (0..<3).map(Self.point) && read.damagedLines == 0)
        // A second track started the same second gets an id of its own.
        let second = try store.start(name: "", now: Date(timeIntervalSince1970: 1_780_000_000))
        #expect(second.id == track.id + "-2" && second.name.hasPrefix("Track "))
        #expect(try store.list().count == 2)
        #expect(throws: TrackError.self) { try store.find("2026") }
        try store.remove(second.id)
        #expect(try store.list().map(\.track.id) == [track.id])
    }

    /// A process killed mid-write leaves a torn last line; a damaged line in the middle (a disk
    /// error, a hand edit) and a point off the globe are skipped and counted; the rest is read.
    @Test func whatACrashLeavesIsReadAndCounted() throws {
        let store = Self.store()
        defer { try? FileManager.default.removeItem(atPath: store.folder) }
        let track = try store.start(name: "Crash", now: Date())
        try store.append([Self.point(0)], to: track.id)
        let path = store.folder + "/" + track.id + ".jsonl"
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("not json\n{\"t\":\"2026-06-01T14:00:00Z\",\"lon\":1e308,\"lat\":91}\n".utf8))
        handle.write(Data((try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")[1] + "\n").utf8))
        handle.write(Data("{\"t\":\"2026-06-01T14:00:0".utf8))
        handle.closeFile()
        let read = try store.read(track.id)
        #expect(read.track.points.count == 2 && read.damagedLines == 3, "\(read)")
        // Appending after the crash starts on a line of its own: the new point is kept.
        try store.append([Self.point(5)], to: track.id)
        let after = try store.read(track.id)
        #expect(after.track.points.count == 3 && after.track.points.last == Self.point(5) && after.damagedLines == 3, "\(after)")
    }

    @Test func hostileIdsAndRunawayFilesAreRefused() throws {
        let store = Self.store()
        defer { try? FileManager.default.removeItem(atPath: store.folder) }
        #expect(throws: TrackError.self) { try store.read("../../etc/passwd") }
        let track = try store.start(name: "Big", now: Date())
        let path = store.folder + "/" + track.id + ".jsonl"
        #expect(truncate(path, off_t(TrackStore.largestFile + 1)) == 0)
        #expect { try store.read(track.id) } throws: { error in
            (error as? TrackError)?.userMessage.contains("larger than a track can be") == true
        }
    }
}
