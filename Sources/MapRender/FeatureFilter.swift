import MapbookCore
import TileFormats

/// A style layer's `filter`, compiled once per style. Dense styles are hundreds of legacy filters
/// (`==`, `!=`, `in`, `!in`, `has`, `!has`, `<`…, `all`, `any`, `none` over properties, `$type` and
/// `$id`) tried against every feature of their source layer; interpreting their JSON each time was
/// most of a drawing. Compiled, a filter is bound to one tile layer's key table (`bound(to:)`)
/// before that layer's features are walked, so a check is a scan of the feature's tags. Anything
/// else (expressions) stays JSON for `StyleExpression`, which gives the same answers, only slower.
indirect enum FeatureFilter: Sendable {
    case all([FeatureFilter])
    case any([FeatureFilter])
    case none([FeatureFilter])
    /// `==` and `in` (and, negated, `!=` and `!in`): the property equals one of the values.
    case equals(Property, [Value], negated: Bool)
    case order(Property, Order, Value)
    case has(Property, negated: Bool)
    case constant(Bool)
    case expression(JSONValue)

    enum Property: Sendable {
        case type, id
        /// A feature property; `key` is its index in the bound tile layer's keys (nil: not there).
        case named(String, key: UInt32?)
    }

    enum Value: Sendable, Equatable {
        case string(String), number(Double), bool(Bool), null

        init?(_ json: JSONValue) {
            switch json {
            case .string(let s): self = .string(s)
            case .number(let n): self = .number(n)
            case .bool(let b): self = .bool(b)
            case .null: self = .null
            default: return nil
            }
        }
    }

    enum Order: Sendable { case less, lessOrEqual, greater, greaterOrEqual }

    /// What filters read of a feature.
    struct Feature {
        var type: MVTGeometryType
        var id: UInt64?
        var tags: [UInt32]
    }

    /// Compiles a filter; nil (no filter) lets everything through.
    init(_ json: JSONValue?) {
        guard let json else {
            self = .constant(true)
            return
        }
        self = Self.compile(json) ?? .expression(json)
    }

    private static func compile(_ json: JSONValue) -> FeatureFilter? {
        if case .bool(let b) = json { return .constant(b) }
        guard case .array(let items) = json, case .string(let op)? = items.first else { return nil }
        let args = Array(items.dropFirst())
        if ["all", "any", "none"].contains(op) {
            let parts = args.map { compile($0) ?? .expression($0) }
            return op == "all" ? .all(parts) : op == "any" ? .any(parts) : .none(parts)
        }
        // Legacy forms name the property by a bare string first; expressions start with an array.
        guard case .string(let name)? = args.first else { return nil }
        let property: Property = name == "$type" ? .type : name == "$id" ? .id : .named(name, key: nil)
        let values = args.dropFirst().map(Value.init)
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        let scalars = values.compactMap { $0 }
        switch op {
        case "==", "!=":
            guard scalars.count == 1 else { return nil }
            return .equals(property, scalars, negated: op == "!=")
        case "in", "!in": return .equals(property, scalars, negated: op == "!in")
        case "has", "!has":
            guard args.count == 1 else { return nil }
            return .has(property, negated: op == "!has")
        case "<", "<=", ">", ">=":
            guard scalars.count == 1 else { return nil }
            let order: Order = op == "<" ? .less : op == "<=" ? .lessOrEqual : op == ">" ? .greater : .greaterOrEqual
            return .order(property, order, scalars[0])
        default: return nil
        }
    }

    /// The filter with its property names looked up in `layer`'s keys.
    func bound(to layer: PreparedLayer) -> FeatureFilter {
        func bind(_ property: Property) -> Property {
            guard case .named(let name, _) = property else { return property }
            return .named(name, key: layer.keyIndex[name])
        }
        switch self {
        case .all(let parts): return .all(parts.map { $0.bound(to: layer) })
        case .any(let parts): return .any(parts.map { $0.bound(to: layer) })
        case .none(let parts): return .none(parts.map { $0.bound(to: layer) })
        case .equals(let property, let values, let negated): return .equals(bind(property), values, negated: negated)
        case .order(let property, let order, let value): return .order(bind(property), order, value)
        case .has(let property, let negated): return .has(bind(property), negated: negated)
        case .constant, .expression: return self
        }
    }

    /// Whether a feature of `layer` passes, at `zoom`, given its tags, type and id (not the whole
    /// feature, whose copy would cost more than the check). Bound filters only (see `bound(to:)`).
    func passes(_ feature: Feature, in layer: PreparedLayer, zoom: Double) -> Bool {
        switch self {
        case .all(let parts): return parts.allSatisfy { $0.passes(feature, in: layer, zoom: zoom) }
        case .any(let parts): return parts.contains { $0.passes(feature, in: layer, zoom: zoom) }
        case .none(let parts): return !parts.contains { $0.passes(feature, in: layer, zoom: zoom) }
        case .equals(let property, let values, let negated):
            let value = Self.value(of: property, feature, layer)
            return values.contains(value) != negated
        case .order(let property, let order, let bound):
            let value = Self.value(of: property, feature, layer)
            let comparison: Int
            switch (value, bound) {
            case (.number(let x), .number(let y)): comparison = x < y ? -1 : x > y ? 1 : 0
            case (.string(let x), .string(let y)): comparison = x < y ? -1 : x > y ? 1 : 0
            default: return false
            }
            switch order {
            case .less: return comparison < 0
            case .lessOrEqual: return comparison <= 0
            case .greater: return comparison > 0
            case .greaterOrEqual: return comparison >= 0
            }
        case .has(let property, let negated):
            return (Self.value(of: property, feature, layer) != .null) != negated
        case .constant(let result):
            return result
        case .expression(let json):
            return StyleExpression.passes(json, FeatureContext(zoom: zoom, type: feature.type, id: feature.id, tags: feature.tags, in: layer))
        }
    }

    private static func value(of property: Property, _ feature: Feature, _ layer: PreparedLayer) -> Value {
        switch property {
        case .type: return .string(StyleExpression.typeName(feature.type))
        case .id: return feature.id.map { .number(Double($0)) } ?? .null
        case .named(_, let key):
            guard let key, let found = layer.value(key: key, tags: feature.tags) else { return .null }
            // A tile value is always a string, number or bool: never nil here.
            return Value(StyleExpression.json(found)) ?? .null
        }
    }
}
