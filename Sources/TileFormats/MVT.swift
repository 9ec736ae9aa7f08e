/// A Mapbox Vector Tile (spec 2.1): named layers of features with properties and geometry in tile
/// coordinates (0…extent, y down).
public struct MVTTile: Sendable, Equatable {
    public var layers: [MVTLayer]

    public init(layers: [MVTLayer]) { self.layers = layers }
}

public struct MVTLayer: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var extent: Int
    public var keys: [String]
    public var values: [MVTValue]
    public var features: [MVTFeature]

    public init(version: Int = 2, name: String, extent: Int = 4096, keys: [String] = [], values: [MVTValue] = [],
                features: [MVTFeature] = []) {
        self.version = version; self.name = name; self.extent = extent; self.keys = keys
        self.values = values; self.features = features
    }

    /// A feature's properties by name (its tags resolved through keys and values).
    public func properties(of feature: MVTFeature) -> [String: MVTValue] {
        var result: [String: MVTValue] = [:]
        var i = 0
        while i + 1 < feature.tags.count {
            let k = Int(feature.tags[i]), v = Int(feature.tags[i + 1])
            if k < keys.count, v < values.count { result[keys[k]] = values[v] }
            i += 2
        }
        return result
    }
}

public enum MVTValue: Sendable, Hashable {
    case string(String)
    case float(Float)
    case double(Double)
    case int(Int64)
    case uint(UInt64)
    case sint(Int64)
    case bool(Bool)
}

public enum MVTGeometryType: UInt32, Sendable {
    case unknown = 0, point = 1, lineString = 2, polygon = 3
}

public struct MVTPoint: Sendable, Hashable {
    public var x: Int32
    public var y: Int32

    public init(x: Int32, y: Int32) { self.x = x; self.y = y }
}

public struct MVTFeature: Sendable, Equatable {
    public var id: UInt64?
    public var type: MVTGeometryType
    /// Alternating key and value indexes into the layer's `keys` and `values`.
    public var tags: [UInt32]
    /// The encoded command stream, as in the tile.
    public var commands: [UInt32]
    /// The commands decoded: points, lines or rings; empty when they could not be decoded.
    public var geometry: MVTGeometry
    /// Why the commands could not be decoded. One bad feature does not spoil its tile: renderers draw
    /// the rest and report this.
    public var geometryError: MVTError?

    public init(id: UInt64? = nil, type: MVTGeometryType, tags: [UInt32] = [], commands: [UInt32],
                geometry: MVTGeometry, geometryError: MVTError? = nil) {
        self.id = id; self.type = type; self.tags = tags; self.commands = commands; self.geometry = geometry
        self.geometryError = geometryError
    }
}

/// Decoded geometry, flat: all vertices in one array, and where each part (a point run, a line, a
/// ring) ends. Rings are stored without their closing vertex.
public struct MVTGeometry: Sendable, Equatable {
    public var points: [MVTPoint]
    /// End index (exclusive) in `points` of each part.
    public var partEnds: [Int]
    /// For polygons: whether each ring is exterior (positive area in tile coordinates, y down).
    public var exteriorRings: [Bool]

    public init(points: [MVTPoint] = [], partEnds: [Int] = [], exteriorRings: [Bool] = []) {
        self.points = points; self.partEnds = partEnds; self.exteriorRings = exteriorRings
    }

    public static let empty = MVTGeometry()
}
