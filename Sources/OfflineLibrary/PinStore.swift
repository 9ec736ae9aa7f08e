import Foundation
import MapbookCore
import UserFiles
import Geometry

/// The user's pins, in the data directory beside the portals (`pins.json`), independent of any
/// portal. Every change reads, changes and writes the file under an exclusive `flock` on
/// `pins.json.lock`, so two processes adding pins at once keep both; writes are atomic. A file that
/// cannot be read is moved aside as `pins.json.bad-<time>` (every damaged copy kept), never
/// emptied, and reading says where.
public struct PinStore: Sendable {
    public let path: String

    public init(root: String) { path = root + "/pins.json" }

    public func load() throws -> [Pin] {
        try locked { try read() }
    }

    /// The pins in the file; the lock must be held.
    private func read() throws -> [Pin] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            return try AtomicFile.readJSON([Pin].self, from: path) ?? []
        } catch {
            let stamp = Self.stamp.string(from: Date())
            var aside = path + ".bad-" + stamp, suffix = 1
            while FileManager.default.fileExists(atPath: aside) {
                suffix += 1
                aside = path + ".bad-\(stamp)-\(suffix)"
            }
            guard rename(path, aside) == 0 else {
                throw PinError("\(path) is damaged, and it could not be moved aside (\(String(cString: strerror(errno)))): "
                               + "no pin was changed; move it away to start a new pins file.")
            }
            throw PinError("\(path) is damaged; it was kept as \(aside), and a new pins file is started.")
        }
    }

    /// Runs `change` on the pins and writes the result, all under the lock.
    private func modify<T>(_ change: (inout [Pin]) throws -> T) throws -> T {
        try locked {
            var pins = try read()
            let result = try change(&pins)
            try AtomicFile.writeJSON(pins, to: path)
            return result
        }
    }

    /// Holds an exclusive lock on `pins.json.lock` (waiting for another process's change) for `body`.
    private func locked<T>(_ body: () throws -> T) throws -> T {
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fd = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw PinError("\(path).lock could not be opened (\(String(cString: strerror(errno)))), so the pins were not changed.") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw PinError("\(path).lock could not be locked, so the pins were not changed.") }
        }
        return try body()
    }

    private static let stamp: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter
    }()

    /// Adds a pin: the title is needed, the point must be on the globe, a link must be http or https.
    @discardableResult
    public func add(title: String, note: String?, link: String?, at point: GeoPoint, accuracy: Double? = nil, now: Date = Date()) throws -> Pin {
        var pin = try Self.pin(id: Self.newID(), title: title, note: note, link: link, point: point, created: now)
        pin.accuracy = accuracy.flatMap { $0.isFinite && $0 >= 0 && $0 < 1_000_000 ? $0 : nil }
        try modify { $0.append(pin) }
        return pin
    }

    /// Changes a pin's title, note and link (checked as when added); its place and time stay.
    @discardableResult
    public func update(_ id: String, title: String, note: String?, link: String?) throws -> Pin {
        try modify { pins in try Self.update(&pins, id, title: title, note: note, link: link) }
    }

    private static func update(_ pins: inout [Pin], _ id: String, title: String, note: String?, link: String?) throws -> Pin {
        guard let index = pins.firstIndex(where: { $0.id == id }) else { throw PinError("That pin is no longer there.") }
        let old = pins[index]
        pins[index] = try Self.pin(id: id, title: title, note: note, link: link, point: GeoPoint(longitude: old.longitude, latitude: old.latitude),
                                   created: old.created)
        return pins[index]
    }

    /// Removes the pin with this id (or the one pin whose id starts so); false when there is none.
    public func remove(_ id: String) throws -> Bool {
        try modify { pins in try Self.remove(&pins, id) }
    }

    private static func remove(_ pins: inout [Pin], _ id: String) throws -> Bool {
        let matches = pins.indices.filter { pins[$0].id == id || pins[$0].id.hasPrefix(id.lowercased()) }
        guard matches.count == 1 else {
            if matches.count > 1 { throw PinError("“\(TerminalText.sanitizedLine(id, maxLength: 40))” names more than one pin: give more of its id.") }
            return false
        }
        pins.remove(at: matches[0])
        return true
    }

    /// The pins as a GeoJSON FeatureCollection (RFC 7946): points with their title, note, link, id
    /// and creation time.
    public static func geoJSON(_ pins: [Pin]) -> JSONValue {
        let dates = ISO8601DateFormatter()
        return GeoJSON.featureCollection(pins.map { pin in
            // Every key always there (docs/cli.md's rule), null for none.
            let properties: [String: JSONValue] = ["id": .string(pin.id), "title": .string(pin.title), "created": .string(dates.string(from: pin.created)),
                                                   "note": pin.note.map(JSONValue.string) ?? .null, "link": pin.link.map(JSONValue.string) ?? .null,
                                                   "accuracy": pin.accuracy.map(JSONValue.number) ?? .null]
            return (geometry: .points([GeoPoint(longitude: pin.longitude, latitude: pin.latitude)]), properties: properties)
        })
    }

    /// Adds the points of a GeoJSON FeatureCollection (or one Feature); returns how many were added
    /// and, for each feature left out, why.
    public func importGeoJSON(_ data: Data, now: Date = Date()) throws -> (added: Int, problems: [String]) {
        guard let json = try? JSONValue(parsing: data) else { throw PinError("The file is not JSON.") }
        let features = json["type"]?.string == "Feature" ? [json] : json["features"]?.array ?? []
        guard json["type"]?.string == "Feature" || json["type"]?.string == "FeatureCollection" else {
            throw PinError("The file is not a GeoJSON Feature or FeatureCollection.")
        }
        var found: [Pin] = [], problems: [String] = []
        for (index, feature) in features.enumerated() {
            let coordinates = feature["geometry"]?["coordinates"]?.array ?? []
            guard feature["geometry"]?["type"]?.string == "Point", coordinates.count >= 2,
                  let longitude = coordinates[0].double, let latitude = coordinates[1].double else {
                problems.append("Feature \(index + 1) is not a point.")
                continue
            }
            let properties = feature["properties"]
            let title = properties?["title"]?.string ?? properties?["name"]?.string ?? ""
            do {
                found.append(try Self.pin(id: Self.newID(), title: title, note: properties?["note"]?.string, link: properties?["link"]?.string,
                                          point: GeoPoint(longitude: longitude, latitude: latitude), created: now))
            } catch {
                problems.append("Feature \(index + 1): \(error.userSentence)")
            }
        }
        if !found.isEmpty { try modify { $0 += found } }
        return (found.count, problems)
    }

    private static func pin(id: String, title: String, note: String?, link: String?, point: GeoPoint, created: Date) throws -> Pin {
        let title = TerminalText.sanitizedLine(title, maxLength: 120).trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty else { throw PinError("A pin needs a title.") }
        guard point.longitude.isFinite, point.latitude.isFinite, abs(point.longitude) <= 180, abs(point.latitude) <= 90 else {
            throw PinError("A pin's place must be on the globe: longitude −180 to 180, latitude −90 to 90.")
        }
        var checkedLink: String?
        if let link, !link.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let url = URL(string: link.trimmingCharacters(in: .whitespaces)), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                  url.host != nil, link.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                throw PinError("A pin's link must be an http or https address.")
            }
            checkedLink = url.absoluteString
        }
        let cleanNote = note.map { TerminalText.sanitizedLine($0, maxLength: 1000) }.flatMap { $0.isEmpty ? nil : $0 }
        // Whole seconds: what a pin shows, and what reads back exactly from the file.
        return Pin(id: id, title: title, note: cleanNote, link: checkedLink, longitude: point.longitude, latitude: point.latitude,
                   created: Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded(.down)))
    }

    private static func newID() -> String { String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)) }
}
