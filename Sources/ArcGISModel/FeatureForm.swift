import Foundation
import MapbookCore

/// A field's domain: coded values (names by code) or a range. What a subtype or a form gives a field
/// replaces the field's own.
public struct FieldDomain: Sendable, Equatable {
    public var codedValues: [String: String]
    public var range: ClosedRange<Double>?

    public init(codedValues: [String: String] = [:], range: ClosedRange<Double>? = nil) { self.codedValues = codedValues; self.range = range }

    /// `{"type": "codedValue", "codedValues": […]}` or `{"type": "range", "range": [low, high]}`;
    /// nil for anything else (`inherited`: the field's own stands).
    public init?(json: JSONValue?) {
        switch json?["type"]?.string {
        case "codedValue":
            var names: [String: String] = [:]
            for coded in (json?["codedValues"]?.array ?? []).prefix(10_000) {
                guard let code = coded["code"].flatMap(FeatureField.codeText), let name = coded["name"]?.string else { continue }
                names[code] = name
            }
            self.init(codedValues: names)
        case "range":
            guard let bounds = json?["range"]?.array, bounds.count == 2, let low = bounds[0].double, let high = bounds[1].double,
                  low.isFinite, high.isFinite, low <= high else { return nil }
            self.init(range: low...high)
        default:
            return nil
        }
    }
}

/// A layer's feature types (`typeIdField` and `types`, or `subtypeField` and `subtypes`): each a
/// code and name, the domains it gives fields, the values a new feature of it starts with.
public struct FeatureTypes: Sendable, Equatable {
    public struct FeatureType: Sendable, Equatable {
        public var code: String
        public var name: String
        public var domains: [String: FieldDomain]
        public var defaults: [String: JSONValue]
    }

    public var field: String
    public var types: [FeatureType]

    public init?(json: JSONValue) {
        if let field = json["typeIdField"]?.string, let types = json["types"]?.array, !types.isEmpty {
            self.field = field
            self.types = types.prefix(1_000).compactMap { type in
                guard let code = type["id"].flatMap(FeatureField.codeText) else { return nil }
                return FeatureType(code: code, name: type["name"]?.string ?? code, domains: Self.domains(type["domains"]),
                                   defaults: type["templates"]?.array.first?["prototype"]?["attributes"]?.object ?? [:])
            }
        } else if let field = json["subtypeField"]?.string, let subtypes = json["subtypes"]?.array, !subtypes.isEmpty {
            self.field = field
            self.types = subtypes.prefix(1_000).compactMap { type in
                guard let code = type["code"].flatMap(FeatureField.codeText) else { return nil }
                return FeatureType(code: code, name: type["name"]?.string ?? code, domains: Self.domains(type["domains"]),
                                   defaults: type["defaultValues"]?.object ?? [:])
            }
        } else {
            return nil
        }
        guard !types.isEmpty else { return nil }
    }

    private static func domains(_ json: JSONValue?) -> [String: FieldDomain] {
        var domains: [String: FieldDomain] = [:]
        for (field, domain) in json?.object ?? [:] { domains[field] = FieldDomain(json: domain) }
        return domains
    }
}

/// A feature's form, generated from what the data says: the layer's fields (editable, nullable,
/// length, type, default), their domains and the layer's feature types, the web map's popup
/// `fieldInfos` (label, order, `isEditable`) and `formInfo` (a Field Maps form: element order,
/// groups, labels, hints, its own domains). Arcade is not evaluated: an expression that is a plain
/// `true` or `false` is taken, any other is left out and the form says so. The browser, the plain
/// mode and `mapbook feature` check values with it, so a form and a command refuse alike.
public struct FeatureFormDefinition: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// The layer's field, with the form's domain where it gives one.
        public var field: FeatureField
        public var label: String
        /// The group it sits in (`formInfo`'s group element), named.
        public var group: String?
        /// Placeholder text or the element's description.
        public var hint: String?
        public var required: Bool
    }

    public var entries: [Entry]
    public var types: FeatureTypes?
    /// What the form does not do as its author wrote it (Arcade), one sentence each.
    public var notes: [String]

    public init(layer: FeatureLayerInfo, popupInfo: JSONValue? = nil, formInfo: JSONValue? = nil) {
        types = layer.types
        var notes: [String] = []
        var entries: [Entry] = []
        let editable = layer.fields.filter(\.editable)
        let popupFields = (popupInfo?["fieldInfos"]?.array ?? []).prefix(2_000)
        func popupLabel(_ name: String) -> String? {
            popupFields.first { $0["fieldName"]?.string?.caseInsensitiveCompare(name) == .orderedSame }?["label"]?.string
        }
        func entry(_ field: FeatureField, label: String?, group: String? = nil, hint: String? = nil, required: Bool = false) -> Entry {
            let shown = TerminalText.sanitizedLine(label ?? popupLabel(field.name) ?? field.alias ?? field.name, maxLength: 60)
            return Entry(field: field, label: shown.isEmpty ? field.name : shown, group: group.map { TerminalText.sanitizedLine($0, maxLength: 60) },
                         hint: hint.map { TerminalText.sanitizedLine($0, maxLength: 200) },
                         required: required || !field.nullable || field.name == layer.types?.field)
        }
        if let elements = formInfo?["formElements"]?.array, !elements.isEmpty {
            let expressions = Self.expressions(formInfo?["expressionInfos"])
            var unevaluated: [String] = []
            func walk(_ elements: ArraySlice<JSONValue>, group: String?) {
                for element in elements {
                    switch element["type"]?.string {
                    case "group":
                        walk((element["formElements"]?.array ?? []).prefix(1_000), group: element["label"]?.string ?? group)
                    case "field":
                        guard let name = element["fieldName"]?.string, var field = editable.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }),
                              !entries.contains(where: { $0.field.name == field.name }) else { continue }
                        let label = element["label"]?.string ?? field.alias ?? field.name
                        func rule(_ key: String, _ what: String) -> Bool? {
                            guard let reference = element[key]?.string else { return nil }
                            if let constant = expressions[reference] { return constant }
                            unevaluated.append("\(TerminalText.sanitizedLine(label, maxLength: 40)) (\(what))")
                            return nil
                        }
                        if rule("visibilityExpression", "when shown") == false { continue }
                        if rule("editableExpression", "when editable") == false { continue }
                        let required = rule("requiredExpression", "when required") ?? false
                        if element["valueExpression"]?.string != nil { unevaluated.append("\(TerminalText.sanitizedLine(label, maxLength: 40)) (its calculated value)") }
                        if let domain = FieldDomain(json: element["domain"]) { field.codedValues = domain.codedValues; field.range = domain.range }
                        entries.append(entry(field, label: element["label"]?.string, group: group,
                                             hint: element["hint"]?.string ?? element["description"]?.string, required: required))
                    default:
                        continue
                    }
                }
            }
            walk(elements.prefix(2_000), group: nil)
            if !unevaluated.isEmpty {
                notes.append("Arcade expressions are not evaluated here; left out: " + unevaluated.prefix(6).joined(separator: ", ")
                             + (unevaluated.count > 6 ? ", …" : "") + ".")
            }
        } else if !popupFields.isEmpty {
            for info in popupFields {
                guard let name = info["fieldName"]?.string, info["isEditable"]?.bool ?? true,
                      let field = editable.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }),
                      !entries.contains(where: { $0.field.name == field.name }) else { continue }
                entries.append(entry(field, label: info["label"]?.string))
            }
        } else {
            entries = editable.map { entry($0, label: nil) }
        }
        // A field the server needs and the form left out is asked for all the same, last.
        for field in editable where !entries.contains(where: { $0.field.name == field.name })
            && ((!field.nullable && field.defaultValue == nil) || field.name == layer.types?.field) {
            entries.append(entry(field, label: nil))
        }
        // The type's field first: what it is decides the other fields' domains and defaults.
        if let typeField = layer.types?.field, let index = entries.firstIndex(where: { $0.field.name.caseInsensitiveCompare(typeField) == .orderedSame }) {
            var type = entries.remove(at: index)
            type.field.codedValues = Dictionary(layer.types?.types.map { ($0.code, $0.name) } ?? [], uniquingKeysWith: { first, _ in first })
            type.field.range = nil
            entries.insert(type, at: 0)
        }
        self.entries = entries
        self.notes = notes
    }

    /// The entries as a feature of the type coded `type` has them: that type's domains.
    public func entries(ofType type: String?) -> [Entry] {
        guard let chosen = types?.types.first(where: { $0.code == type }) else { return entries }
        return entries.map { entry in
            var entry = entry
            if entry.field.name != types?.field, let domain = chosen.domains[entry.field.name] {
                entry.field.codedValues = domain.codedValues; entry.field.range = domain.range
            }
            return entry
        }
    }

    /// The values a new feature of the type coded `type` starts with: the type's, else the fields'.
    public func defaults(ofType type: String?) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for entry in entries { if let value = entry.field.defaultValue { values[entry.field.name] = value } }
        for (field, value) in types?.types.first(where: { $0.code == type })?.defaults ?? [:] where value != .null { values[field] = value }
        return values
    }

    /// The typed text as values, each checked by its field's rule, the form's required ones too: the
    /// first refused with why. Only the fields typed in `typed` (by field name) are returned. A
    /// required field typed empty is refused; with `requireAll` (a new feature) one not typed at
    /// all is too, unless the type or the field gives it a default.
    public func values(_ typed: [String: String], ofType type: String?, requireAll: Bool) -> Result<[String: JSONValue], FieldProblem> {
        var values: [String: JSONValue] = [:]
        let defaults = requireAll ? defaults(ofType: type) : [:]
        for entry in entries(ofType: type) {
            let text = typed.first { $0.key.caseInsensitiveCompare(entry.field.name) == .orderedSame }?.value
            let empty = text?.trimmingCharacters(in: .whitespaces).isEmpty ?? true
            if entry.required, empty, text != nil || (requireAll && defaults[entry.field.name] == nil) {
                return .failure(FieldProblem(field: entry.field.name, userMessage: "\(entry.label) is required."))
            }
            guard let text else { continue }
            switch entry.field.value(typed: text) {
            case .success(let value): values[entry.field.name] = value
            case .failure(let problem): return .failure(FieldProblem(field: problem.field, userMessage: problem.userMessage))
            }
        }
        return .success(values)
    }

    /// `expressionInfos` whose whole expression is `true` or `false`, by name.
    private static func expressions(_ json: JSONValue?) -> [String: Bool] {
        var constants: [String: Bool] = [:]
        for info in (json?.array ?? []).prefix(1_000) {
            guard let name = info["name"]?.string, let text = info["expression"]?.string?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() else { continue }
            if text == "true" || text == "return true" || text == "return true;" { constants[name] = true }
            if text == "false" || text == "return false" || text == "return false;" { constants[name] = false }
        }
        return constants
    }
}
