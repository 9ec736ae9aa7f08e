import Foundation
import Geometry

/// A named place for searching offline: from a downloaded package's labels or the bundled gazetteer.
public struct PlaceName: Sendable, Equatable {
    /// Where a name was found, said with the results.
    public enum Source: String, Sendable {
        case package = "a package on this device"
        case gazetteer = "the world gazetteer"
        /// A feature of an operational layer, found by its display field.
        case feature = "a layer on this device"
    }

    public var name: String
    public var point: GeoPoint
    /// How prominent it is: a package's coarsest zoom showing it (lower is more prominent), or a
    /// place's population (as a negative zoom-like rank, so one ordering serves both).
    public var rank: Double
    /// Its state and country, when known ("Texas, United States").
    public var region: String?
    public var source: Source
    /// The layer a feature is of.
    public var layer: String?
    /// What to frame: a line's or an area's extent (a point has none).
    public var extent: GeoExtent?

    public init(name: String, point: GeoPoint, rank: Double, region: String? = nil, source: Source = .package, layer: String? = nil,
                extent: GeoExtent? = nil) {
        self.name = name; self.point = point; self.rank = rank; self.region = region; self.source = source; self.layer = layer
        self.extent = extent
    }

    /// The name with its region: "Austin, Texas, United States".
    public var title: String { region.map { "\(name), \($0)" } ?? name }

    /// Where it was found, said with a result: "Places, a layer on this device".
    public var origin: String { layer.map { "\($0), \(source.rawValue)" } ?? source.rawValue }
}

/// Names searched by prefix without the network: every name and every word in it is a key, folded
/// (case and accents ignored: "luneburg" finds "Lüneburg"), kept sorted, so a prefix is a binary
/// search and a walk over its matches; when no prefix matches, names or words a typo or two away
/// (`TypoDistance`). Ranked by how well it matches (the whole name, its start, a word's start),
/// then by distance to a point (in bands of 10 km), then by prominence; one place said once.
public struct PlaceIndex: Sendable {
    public let places: [PlaceName]
    /// Each place's name folded, once.
    private let folded: [String]
    private let keys: [String]
    private let owners: [Int32]

    public init(places: [PlaceName]) {
        self.places = places
        folded = places.map { Self.fold($0.name) }
        var entries: [(String, Int32)] = []
        entries.reserveCapacity(places.count * 2)
        for (index, folded) in folded.enumerated() {
            entries.append((folded, Int32(index)))
            for word in folded.split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "," || $0 == "/" }).dropFirst() {
                entries.append((String(word), Int32(index)))
            }
            // With its region too, so "Bangor, Maine" tells one Bangor from another.
            if let region = places[index].region { entries.append((folded + ", " + Self.fold(region), Int32(index))) }
        }
        entries.sort { $0.0 < $1.0 }
        keys = entries.map(\.0)
        owners = entries.map(\.1)
    }

    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// The best `limit` places for `text`, each name once (the best-placed of its kind).
    public func search(_ text: String, near: GeoPoint? = nil, limit: Int = 10) -> [PlaceName] {
        let query = Self.fold(text.trimmingCharacters(in: .whitespaces))
        guard !query.isEmpty, limit > 0 else { return [] }
        // The first key not below the query: where its prefix range starts.
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < query { low = middle + 1 } else { high = middle }
        }
        var scored: [Int32: Int] = [:]
        var position = low
        while position < keys.count, keys[position].hasPrefix(query), scored.count < 20_000 {
            let owner = owners[position]
            let name = folded[Int(owner)]
            // The whole name first; then its start, or the name with its region (a key that
            // starts with the whole name); then a later word's start.
            let quality = name == query ? 3 : name.hasPrefix(query) || keys[position].hasPrefix(name) ? 2 : 1
            scored[owner] = max(scored[owner] ?? 0, quality)
            position += 1
        }
        // Nothing starts so: a name (or a word of one) a typo or two away will do ("Hambrug" finds
        // "Hamburg"), a slower walk over every key, for what prefixes do not find.
        if scored.isEmpty, query.count >= 3 {
            let wanted = Array(query.unicodeScalars)
            let allowed = TypoDistance.allowed(forLength: wanted.count)
            for (position, key) in keys.enumerated() where scored.count < 2_000 {
                let owner = owners[position]
                guard scored[owner] == nil else { continue }
                if TypoDistance.within(allowed, wanted, Array(key.unicodeScalars)) { scored[owner] = 0 }
            }
        }
        // Each match's distance worked out once, not in every comparison.
        let ranked = scored.map { entry in
            let place = places[Int(entry.key)]
            // Distance in bands of 10 km: within one, prominence decides.
            return (place: place, quality: entry.value, band: near.map { Int(Geodesy.distance($0, place.point) / 10_000) } ?? 0)
        }.sorted { a, b in
            if a.quality != b.quality { return a.quality > b.quality }
            if a.band != b.band { return a.band < b.band }
            if a.place.rank != b.place.rank { return a.place.rank < b.place.rank }
            // Ties broken by name and place, so an answer is the same each time.
            return (a.place.name, a.place.point.longitude, a.place.point.latitude) < (b.place.name, b.place.point.longitude, b.place.point.latitude)
        }
        var result: [PlaceName] = []
        for entry in ranked where result.count < limit {
            let place = entry.place
            let same = result.contains { kept in
                kept.name == place.name && Geodesy.distance(kept.point, place.point) < max(Self.sameness(kept), Self.sameness(place))
            }
            if !same { result.append(place) }
        }
        return result
    }

    /// How near two places of one name are one place, in metres: a package labels a county or a
    /// river once per tile, far apart; the gazetteer and a package name a town a little apart;
    /// features of a layer are each their own.
    private static func sameness(_ place: PlaceName) -> Double {
        switch place.source {
        case .package: 25_000
        case .gazetteer: 5_000
        case .feature: 100
        }
    }
}
