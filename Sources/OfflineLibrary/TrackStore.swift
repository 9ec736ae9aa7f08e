import Foundation
import Geometry
import Location
import MapbookCore

/// The user's recorded tracks, in the data directory beside the pins (`tracks/ID.jsonl`), any
/// portal. A track is a header line, then a line a point, appended as the points come and flushed
/// to the disk each time: a killed process loses at most the point being written, and a torn last
/// line is left out when the track is read back. A track file larger than `largestFile` is not
/// read (a runaway file cannot exhaust memory); the recorder stops long before that.
public struct TrackStore: Sendable {
    public let folder: String
    public static let largestFile = 128 << 20

    public init(root: String) { folder = root + "/tracks" }

    /// What a track list says of each track, with how many lines of its file could not be read.
    public struct Summary: Sendable, Equatable {
        public var track: Track
        public var damagedLines: Int
    }

    /// A new track named `name` (blank: its start time), its file written with its header.
    public func start(name: String, now: Date = Date()) throws -> Track {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let stamp = Self.idFormat.string(from: now)
        var id = stamp, suffix = 1
        while FileManager.default.fileExists(atPath: path(id)) {
            suffix += 1
            id = "\(stamp)-\(suffix)"
        }
        let trimmed = TerminalText.sanitizedLine(name.trimmingCharacters(in: .whitespaces), maxLength: 120)
        let track = Track(id: id, name: trimmed.isEmpty ? "Track \(Self.nameFormat.string(from: now))" : trimmed, started: now, points: [])
        let header: JSONValue = .object(["mapbookTrack": .number(1), "id": .string(id), "name": .string(track.name), "started": .string(Track.time(now))])
        try write(Data((header.compactText + "\n").utf8), to: id, creating: true)
        return track
    }

    /// Appends `points` to the track `id` and flushes them to the disk.
    public func append(_ points: [TrackPoint], to id: String) throws {
        guard !points.isEmpty else { return }
        let lines = points.map { point -> String in
            var fields: [String: JSONValue] = ["t": .string(Track.time(point.time)), "lon": .number(point.position.longitude),
                                               "lat": .number(point.position.latitude)]
            if let altitude = point.altitude, altitude.isFinite { fields["ele"] = .number(altitude) }
            if let accuracy = point.accuracy, accuracy.isFinite { fields["eph"] = .number(accuracy) }
            return JSONValue.object(fields).compactText + "\n"
        }
        try write(Data(lines.joined().utf8), to: id, creating: false)
    }

    /// Every track, the latest first.
    public func list() throws -> [Summary] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return try names.filter { $0.hasSuffix(".jsonl") }.map { try read(String($0.dropLast(".jsonl".count))) }
            .sorted { $0.track.started > $1.track.started }
    }

    /// The track whose id is `id` or starts with it.
    public func find(_ id: String) throws -> Summary {
        let matching = try list().filter { $0.track.id.hasPrefix(id) }
        guard let first = matching.first, !id.isEmpty else {
            throw TrackError("No track has the id “\(TerminalText.sanitizedLine(id, maxLength: 40))”; mapbook tracks list shows them.")
        }
        guard matching.count == 1 || matching.contains(where: { $0.track.id == id }) else {
            throw TrackError("Several tracks' ids start with “\(TerminalText.sanitizedLine(id, maxLength: 40))”; give more of it.")
        }
        return matching.first { $0.track.id == id } ?? first
    }

    /// The track in file `id`: its header, then each line that reads as a point on the globe.
    public func read(_ id: String) throws -> Summary {
        guard Self.isID(id) else { throw TrackError("“\(TerminalText.sanitizedLine(id, maxLength: 40))” is not a track's id.") }
        let path = path(id)
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        guard size <= Self.largestFile else {
            throw TrackError("The track \(id) is \(Format.bytes(Int64(size))), larger than a track can be (\(Format.bytes(Int64(Self.largestFile)))); it was not read.")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw TrackError("The track \(id) could not be read.") }
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: true)
        // A last line without its newline was being written when the process ended: left out.
        if data.last != 0x0A, !lines.isEmpty { lines.removeLast() }
        guard let first = lines.first, let header = try? JSONValue(parsing: Data(first)), header["mapbookTrack"] != nil else {
            throw TrackError("The file of the track \(id) is not a mapbook track.")
        }
        let started = header["started"]?.string.flatMap(Self.date) ?? Date(timeIntervalSince1970: 0)
        let name = TerminalText.sanitizedLine(header["name"]?.string ?? id, maxLength: 120)
        var points: [TrackPoint] = [], damaged = data.last != 0x0A && !data.isEmpty ? 1 : 0
        for line in lines.dropFirst() {
            guard let point = Self.point(line) else { damaged += 1; continue }
            points.append(point)
        }
        return Summary(track: Track(id: id, name: name, started: started, points: points), damagedLines: damaged)
    }

    public func remove(_ id: String) throws {
        let found = try find(id)
        try FileManager.default.removeItem(atPath: path(found.track.id))
    }

    // MARK: The file

    private func path(_ id: String) -> String { folder + "/" + id + ".jsonl" }

    private static func isID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 40 && id.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "-" }
    }

    private static func point(_ line: Data.SubSequence) -> TrackPoint? {
        guard line.count <= 4_096, let value = try? JSONValue(parsing: Data(line)),
              let longitude = value["lon"]?.double, let latitude = value["lat"]?.double,
              longitude.isFinite, latitude.isFinite, abs(longitude) <= 180, abs(latitude) <= 90,
              let time = value["t"]?.string.flatMap(date) else { return nil }
        let altitude = value["ele"]?.double.flatMap { $0.isFinite && abs($0) < 100_000 ? $0 : nil }
        let accuracy = value["eph"]?.double.flatMap { $0.isFinite && $0 >= 0 && $0 < 1e7 ? $0 : nil }
        return TrackPoint(position: GeoPoint(longitude: longitude, latitude: latitude), altitude: altitude, accuracy: accuracy, time: time)
    }

    private static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
    }

    /// One write of whole lines, then `fsync`: the lines are on the disk when it returns. After a
    /// torn last line (a crash mid-write) they start on a line of their own, so none is lost.
    private func write(_ data: Data, to id: String, creating: Bool) throws {
        let flags = O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (creating ? O_CREAT | O_EXCL : 0)
        let fd = open(path(id), flags, 0o600)
        guard fd >= 0 else { throw TrackError("The track \(id) could not be opened for writing (\(String(cString: strerror(errno)))).") }
        defer { close(fd) }
        var data = data, last: UInt8 = 0x0A
        let size = lseek(fd, 0, SEEK_END)
        if size > 0, pread(fd, &last, 1, size - 1) == 1, last != 0x0A { data = Data([0x0A]) + data }
        let written = data.withUnsafeBytes { bytes -> Int in
            var done = 0
            while done < bytes.count {
                let n = Foundation.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return -1 }
                done += n
            }
            return done
        }
        guard written == data.count, fsync(fd) == 0 else {
            throw TrackError("The track \(id) could not be written (\(String(cString: strerror(errno)))); the points before are kept.")
        }
    }

    private static let idFormat: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter
    }()

    private static let nameFormat: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter
    }()
}

/// A track that could not be started, written, found or read: one sentence.
public struct TrackError: Error, UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}
