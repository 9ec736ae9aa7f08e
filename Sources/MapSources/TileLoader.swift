import Foundation
import HTTP
import MapRender
import MapbookCore
import TileFormats

/// The tiles for one view, and what could not be had.
public struct LoadedTiles: Sendable {
    public var tiles: [MapTile]
    /// One sentence per kind of trouble (damaged tiles, no network), for the status bar.
    public var problems: [String]
}

/// Loads the tiles a viewport needs from a source, a few at a time, through a bounded memory cache
/// of decoded tiles. Where the source has no tile at the view's level, the nearest coarser tile
/// stands in (an area package holds its deep levels only over the area). After each view it
/// fetches the ring around it, so a pan finds its tiles ready.
public actor TileLoader {
    public nonisolated let source: any MapSource
    private enum Entry { case tile(MapTile), none }
    /// What reading one tile gave. (A flat enum: `Result<MapTile?, Error>` in a dictionary lost
    /// entries in optimized builds.)
    private enum Outcome { case tile(MapTile), none, failed(any Error) }
    private var cache: [TileKey: Entry] = [:]
    private var recent: [TileKey] = []
    private let capacity: Int
    private var prefetch: Task<Void, Never>?

    public init(source: any MapSource, capacity: Int = 384) {
        self.source = source
        self.capacity = capacity
    }

    public func tiles(for viewport: MapViewport, columns: Int, rows: Int) async -> LoadedTiles {
        prefetch?.cancel()
        let zoom = viewport.tileZoom(tileSize: source.tileSize, available: source.zooms)
        let keys = viewport.tiles(atZoom: zoom, columns: columns, rows: rows)
        var failures: [String] = []
        var unreachable: String?
        var found: [TileKey: MapTile] = [:]
        var missing: [TileKey] = []
        for (key, outcome) in await load(keys) {
            switch outcome {
            case .tile(let tile): found[key] = tile
            case .none: missing.append(key)
            case .failed(let error):
                if let host = (error as? HTTPError)?.unreachableHost { unreachable = host } else { failures.append(Self.reason(error)) }
                missing.append(key)
            }
        }
        // Coarser tiles under the holes, drawn first so the finer ones lie on top; where there is
        // none, the next level's four tiles (a package whose coarse levels are damaged).
        var fallbacks: [MapTile] = []
        var covered = Set<TileKey>()
        for key in missing {
            var parent = key
            var filled = false
            while parent.z > source.zooms.lowerBound, !filled {
                parent = TileKey(z: parent.z - 1, x: parent.x / 2, y: parent.y / 2)
                if covered.contains(parent) { filled = true; break }
                if case .tile(let tile)? = await load([parent]).first?.1 {
                    covered.insert(parent)
                    fallbacks.append(tile)
                    filled = true
                }
            }
            if !filled, key.z < source.zooms.upperBound {
                let children = (0..<4).map { TileKey(z: key.z + 1, x: key.x * 2 + $0 % 2, y: key.y * 2 + $0 / 2) }
                for (_, outcome) in await load(children) {
                    if case .tile(let tile) = outcome { fallbacks.append(tile) }
                }
            }
        }
        var problems: [String] = []
        if !failures.isEmpty {
            problems.append("\(failures.count) tile\(failures.count == 1 ? "" : "s") could not be drawn: \(failures[0])")
        }
        if let unreachable {
            problems.append("\(TerminalText.sanitizedLine(unreachable, maxLength: 80)) cannot be reached: only tiles seen before can be drawn.")
        }
        let ordered = fallbacks.sorted { $0.key.z < $1.key.z } + keys.compactMap { found[$0] }
        let ring = viewport.tiles(atZoom: zoom, columns: columns * 2, rows: rows * 2).filter { cache[$0] == nil }
        if !ring.isEmpty, unreachable == nil {
            prefetch = Task { [weak self] in _ = await self?.load(ring) }
        }
        return LoadedTiles(tiles: ordered, problems: problems)
    }

    /// The view's tiles in memory, a coarser one in memory under each that is not, and whether some
    /// are still to come over the network (a file's tiles are read as soon as drawn: never waited for).
    public func atHand(for viewport: MapViewport, columns: Int, rows: Int) -> (tiles: [MapTile], waits: Bool) {
        let zoom = viewport.tileZoom(tileSize: source.tileSize, available: source.zooms)
        let keys = viewport.tiles(atZoom: zoom, columns: columns, rows: rows)
        var found: [MapTile] = [], coarser: [TileKey: MapTile] = [:]
        var waits = false
        for key in keys {
            switch cache[key] {
            case .tile(let tile)?: found.append(tile)
            case .none?: break
            case nil:
                waits = waits || source.isRemote
                var parent = key
                while parent.z > source.zooms.lowerBound {
                    parent = TileKey(z: parent.z - 1, x: parent.x / 2, y: parent.y / 2)
                    if case .tile(let tile)? = cache[parent] { coarser[parent] = tile; break }
                }
            }
        }
        return (coarser.values.sorted { $0.key.z < $1.key.z } + found, waits)
    }

    /// Tiles from the cache or the source, six at a time, in the order asked.
    private func load(_ keys: [TileKey]) async -> [(TileKey, Outcome)] {
        var results: [TileKey: Outcome] = [:]
        var wanted: [TileKey] = []
        for key in keys {
            switch cache[key] {
            case .tile(let tile)?: results[key] = .tile(tile); touch(key)
            case .none?: results[key] = Outcome.none
            case nil: wanted.append(key)
            }
        }
        let source = self.source
        let fetched = await withTaskGroup(of: (TileKey, Outcome).self,
                                          returning: [(TileKey, Outcome)].self) { group in
            var pending = wanted[...]
            var done: [(TileKey, Outcome)] = []
            var running = 0
            while true {
                while running < 6, !Task.isCancelled, let key = pending.popFirst() {
                    running += 1
                    group.addTask {
                        do {
                            guard let tile = try await source.tile(key) else { return (key, Outcome.none) }
                            return (key, .tile(tile))
                        } catch {
                            return (key, .failed(error))
                        }
                    }
                }
                guard let result = await group.next() else { break }
                running -= 1
                done.append(result)
            }
            return done
        }
        for (key, result) in fetched {
            results[key] = result
            switch result {
            case .tile(let tile): remember(key, .tile(tile))
            case .none: remember(key, Entry.none)
            case .failed: break
            }
        }
        return keys.compactMap { key in results[key].map { (key, $0) } }
    }

    private func remember(_ key: TileKey, _ entry: Entry) {
        cache[key] = entry
        touch(key)
        if cache.count > capacity {
            let evicted = recent.prefix(cache.count - capacity)
            for old in evicted { cache[old] = nil }
            recent.removeFirst(evicted.count)
        }
    }

    private func touch(_ key: TileKey) {
        if let index = recent.lastIndex(of: key) { recent.remove(at: index) }
        recent.append(key)
    }

    static func reason(_ error: any Error) -> String {
        if let format = error as? TileFormatError { return format.description }
        return error.userSentence
    }
}
