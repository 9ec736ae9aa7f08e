import Foundation
import MapbookCore
import TileFormats

/// What a style expression can ask about the feature being drawn.
public struct FeatureContext {
    public var zoom: Double
    public var type: MVTGeometryType
    public var id: UInt64?
    /// Where properties come from: a tile layer's tags (no allocation per feature, which matters
    /// when hundreds of style layers filter thousands of features), or a lookup function.
    private let layer: PreparedLayer?
    private let tags: [UInt32]
    private let lookup: ((String) -> MVTValue?)?

    public init(zoom: Double, type: MVTGeometryType = .unknown, id: UInt64? = nil, property: ((String) -> MVTValue?)? = nil) {
        self.zoom = zoom; self.type = type; self.id = id
        layer = nil; tags = []; lookup = property
    }

    init(zoom: Double, feature: MVTFeature, in layer: PreparedLayer) {
        self.init(zoom: zoom, type: feature.type, id: feature.id, tags: feature.tags, in: layer)
    }

    init(zoom: Double, type: MVTGeometryType, id: UInt64?, tags: [UInt32], in layer: PreparedLayer) {
        self.zoom = zoom; self.type = type; self.id = id
        self.layer = layer; self.tags = tags; lookup = nil
    }

    /// A property by name; nil when the feature does not have it.
    public func property(_ name: String) -> MVTValue? {
        if let layer { return layer.value(name, tags: tags) }
        return lookup?(name)
    }

    /// The context for values that depend on the zoom alone.
    public static func zoom(_ zoom: Double) -> FeatureContext { FeatureContext(zoom: zoom) }
}

/// Evaluates Mapbox GL style filters and values: legacy filters (`["==", "class", "river"]`,
/// `in`, `has`, `all`…), legacy functions (`{"stops": …}`) and the common expressions (`get`,
/// `match`, `case`, `coalesce`, `interpolate`, `step`, `zoom`, comparisons, `concat`…). Anything
/// it does not know evaluates to null, so an unknown filter hides its layer rather than failing
/// the map.
public enum StyleExpression {
    public static func passes(_ filter: JSONValue?, _ context: FeatureContext) -> Bool {
        guard let filter else { return true }
        return truthy(evaluate(filter, context))
    }

    public static func evaluate(_ value: JSONValue, _ context: FeatureContext) -> JSONValue {
        switch value {
        case .array(let items):
            guard case .string(let op)? = items.first else { return value }
            return call(op, items.dropFirst(), context)
        case .object(let members):
            if let stops = members["stops"] { return function(members, stops: stops, context) }
            return value
        default:
            return value
        }
    }

    /// Only `true` passes a filter: anything else, null included, is false.
    static func truthy(_ value: JSONValue) -> Bool {
        switch value {
        case .bool(let b): b
        default: false
        }
    }

    // MARK: Operators

    private static func call(_ op: String, _ args: ArraySlice<JSONValue>, _ context: FeatureContext) -> JSONValue {
        // Legacy filters name a property by a bare string in the first argument.
        let legacy = args.first.map { if case .string = $0 { true } else { false } } ?? false
        switch op {
        case "==", "!=", "<", "<=", ">", ">=":
            guard args.count >= 2 else { return .null }
            let left = legacy ? legacyProperty(args[offset: 0], context) : evaluate(args[offset: 0], context)
            let right = evaluate(args[offset: 1], context)
            return .bool(compare(op, left, right))
        case "in" where legacy, "!in":
            guard let key = args.first else { return .null }
            let value = legacyProperty(key, context)
            let found = args.dropFirst().contains { equal(value, evaluate($0, context)) }
            return .bool(op == "in" ? found : !found)
        case "in":
            guard args.count == 2 else { return .null }
            let needle = evaluate(args[offset: 0], context), haystack = evaluate(args[offset: 1], context)
            switch haystack {
            case .array(let items): return .bool(items.contains { equal(needle, $0) })
            case .string(let text): return .bool(needle.string.map(text.contains) ?? false)
            default: return .bool(false)
            }
        case "has" where legacy, "!has":
            guard case .string(let key)? = args.first else { return .null }
            let has = !legacyProperty(.string(key), context).isNull
            return .bool(op == "has" ? has : !has)
        case "has":
            guard let key = args.first.map({ evaluate($0, context) })?.string else { return .null }
            return .bool(context.property(key) != nil)
        case "all": return .bool(args.allSatisfy { truthy(evaluate($0, context)) })
        case "any": return .bool(args.contains { truthy(evaluate($0, context)) })
        case "none": return .bool(!args.contains { truthy(evaluate($0, context)) })
        case "!": return .bool(!(args.first.map { truthy(evaluate($0, context)) } ?? false))
        case "get":
            guard let key = args.first.map({ evaluate($0, context) })?.string else { return .null }
            return context.property(key).map(json) ?? .null
        case "literal": return args.first ?? .null
        case "zoom": return .number(context.zoom)
        case "geometry-type": return .string(typeName(context.type))
        case "id": return context.id.map { .number(Double($0)) } ?? .null
        case "match": return match(args, context)
        case "case":
            var i = 0
            while i + 1 < args.count {
                if truthy(evaluate(args[offset: i], context)) { return evaluate(args[offset: i + 1], context) }
                i += 2
            }
            return args.count % 2 == 1 ? evaluate(args[offset: args.count - 1], context) : .null
        case "coalesce":
            for arg in args {
                let value = evaluate(arg, context)
                if !value.isNull { return value }
            }
            return .null
        case "step": return step(args, context)
        case "interpolate": return interpolate(args, context)
        case "to-string", "string":
            return .string(args.first.map { text(evaluate($0, context)) } ?? "")
        case "to-number", "number":
            return args.first.flatMap { evaluate($0, context).double }.map(JSONValue.number) ?? .null
        case "to-boolean", "boolean":
            return .bool(args.first.map { truthy(evaluate($0, context)) } ?? false)
        case "concat": return .string(args.map { text(evaluate($0, context)) }.joined())
        case "downcase": return .string(args.first.map { text(evaluate($0, context)).lowercased() } ?? "")
        case "upcase": return .string(args.first.map { text(evaluate($0, context)).uppercased() } ?? "")
        case "format":
            // Formatted text: the strings, without their formatting options.
            return .string(args.compactMap { arg -> String? in
                if case .object = arg { return nil }
                return text(evaluate(arg, context))
            }.joined())
        case "+", "*":
            let numbers = args.compactMap { evaluate($0, context).double }
            guard numbers.count == args.count else { return .null }
            return .number(op == "+" ? numbers.reduce(0, +) : numbers.reduce(1, *))
        case "-", "/":
            let numbers = args.compactMap { evaluate($0, context).double }
            guard numbers.count == args.count, let first = numbers.first else { return .null }
            if numbers.count == 1 { return op == "-" ? .number(-first) : .null }
            return .number(op == "-" ? first - numbers[1] : first / numbers[1])
        case "rgb", "rgba":
            let numbers = args.compactMap { evaluate($0, context).double }
            guard numbers.count >= 3 else { return .null }
            let alpha = numbers.count > 3 ? numbers[3] : 1
            return .string("rgba(\(numbers[0]),\(numbers[1]),\(numbers[2]),\(alpha))")
        default:
            return .null
        }
    }

    private static func legacyProperty(_ key: JSONValue, _ context: FeatureContext) -> JSONValue {
        guard case .string(let name) = key else { return evaluate(key, context) }
        switch name {
        case "$type": return .string(typeName(context.type))
        case "$id": return context.id.map { .number(Double($0)) } ?? .null
        default: return context.property(name).map(json) ?? .null
        }
    }

    private static func match(_ args: ArraySlice<JSONValue>, _ context: FeatureContext) -> JSONValue {
        guard args.count >= 2 else { return .null }
        let input = evaluate(args[offset: 0], context)
        var i = 1
        while i + 1 < args.count {
            let labels = args[offset: i].isArray ? args[offset: i].array : [args[offset: i]]
            if labels.contains(where: { equal(input, $0) }) { return evaluate(args[offset: i + 1], context) }
            i += 2
        }
        return i < args.count ? evaluate(args[offset: i], context) : .null
    }

    private static func step(_ args: ArraySlice<JSONValue>, _ context: FeatureContext) -> JSONValue {
        guard args.count >= 2, let input = evaluate(args[offset: 0], context).double else { return .null }
        var result = args[offset: 1]
        var i = 2
        while i + 1 < args.count, let stop = args[offset: i].double, input >= stop {
            result = args[offset: i + 1]
            i += 2
        }
        return evaluate(result, context)
    }

    private static func interpolate(_ args: ArraySlice<JSONValue>, _ context: FeatureContext) -> JSONValue {
        guard args.count >= 4, let input = evaluate(args[offset: 1], context).double else { return .null }
        var base = 1.0
        if args[offset: 0].array.first?.string == "exponential" { base = args[offset: 0].array.dropFirst().first?.double ?? 1 }
        var stops: [(Double, JSONValue)] = []
        var i = 2
        while i + 1 < args.count {
            if let at = args[offset: i].double { stops.append((at, evaluate(args[offset: i + 1], context))) }
            i += 2
        }
        return interpolateStops(stops, at: input, base: base)
    }

    /// A legacy function: `{"stops": [[zoom, value], …], "base": …}` over the zoom, or over a
    /// property when it names one (`"property": …`, with `"type": "categorical"` for exact matches).
    private static func function(_ members: [String: JSONValue], stops: JSONValue, _ context: FeatureContext) -> JSONValue {
        let pairs: [(JSONValue, JSONValue)] = stops.array.compactMap { stop in
            let pair = stop.array
            return pair.count == 2 ? (pair[0], pair[1]) : nil
        }
        let input: JSONValue
        if let property = members["property"]?.string {
            input = context.property(property).map(json) ?? .null
        } else {
            input = .number(context.zoom)
        }
        if members["type"]?.string == "categorical" {
            return pairs.first { equal(input, $0.0) }?.1 ?? members["default"] ?? .null
        }
        guard let x = input.double else { return members["default"] ?? .null }
        let numeric = pairs.compactMap { pair in pair.0.double.map { ($0, pair.1) } }
        if members["type"]?.string == "interval" {
            return numeric.last { $0.0 <= x }?.1 ?? numeric.first?.1 ?? .null
        }
        return interpolateStops(numeric, at: x, base: members["base"]?.double ?? 1)
    }

    /// Numbers and colours blend between stops; anything else takes the lower stop's value.
    private static func interpolateStops(_ stops: [(Double, JSONValue)], at x: Double, base: Double) -> JSONValue {
        guard let first = stops.first, let last = stops.last else { return .null }
        if x <= first.0 { return first.1 }
        if x >= last.0 { return last.1 }
        for i in 1..<stops.count where x < stops[i].0 {
            let (x0, v0) = stops[i - 1], (x1, v1) = stops[i]
            let span = x1 - x0
            let t = span <= 0 ? 0 : base == 1 ? (x - x0) / span : (pow(base, x - x0) - 1) / (pow(base, span) - 1)
            if let a = v0.double, let b = v1.double, case .number = v0 { return .number(a + (b - a) * t) }
            if let a = v0.string.flatMap(StyleColor.init(parsing:)), let b = v1.string.flatMap(StyleColor.init(parsing:)) {
                return .string(a.mixed(with: b, amount: t).cssString)
            }
            return v0
        }
        return last.1
    }

    // MARK: Values

    private static func compare(_ op: String, _ a: JSONValue, _ b: JSONValue) -> Bool {
        switch op {
        case "==": return equal(a, b)
        case "!=": return !equal(a, b)
        default: break
        }
        let order: Int?
        if case .number(let x) = a, case .number(let y) = b { order = x < y ? -1 : x > y ? 1 : 0 }
        else if case .string(let x) = a, case .string(let y) = b { order = x < y ? -1 : x > y ? 1 : 0 }
        else { order = nil }
        guard let order else { return false }
        switch op {
        case "<": return order < 0
        case "<=": return order <= 0
        case ">": return order > 0
        default: return order >= 0
        }
    }

    private static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.bool(let x), .bool(let y)): x == y
        case (.null, .null): true
        default: false
        }
    }

    /// A vector tile value as JSON: for expressions, and for popup cards.
    public static func json(_ value: MVTValue) -> JSONValue {
        switch value {
        case .string(let s): .string(s)
        case .float(let f): .number(Double(f))
        case .double(let d): .number(d)
        case .int(let i), .sint(let i): .number(Double(i))
        case .uint(let u): .number(Double(u))
        case .bool(let b): .bool(b)
        }
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .bool(let b): b ? "true" : "false"
        default: ""
        }
    }

    static func typeName(_ type: MVTGeometryType) -> String {
        switch type {
        case .point: "Point"
        case .lineString: "LineString"
        case .polygon: "Polygon"
        case .unknown: "Unknown"
        }
    }
}

extension ArraySlice {
    /// Elements by position from the slice's start (a slice keeps its base's indices).
    subscript(offset i: Int) -> Element { self[startIndex + i] }
}

extension JSONValue {
    var isNull: Bool { if case .null = self { true } else { false } }
    var isArray: Bool { if case .array = self { true } else { false } }
}
