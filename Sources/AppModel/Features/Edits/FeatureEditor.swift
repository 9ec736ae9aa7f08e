import ArcGISModel
import Foundation
import Geometry
import MapbookCore

/// A layer of the area an edit may go to, as the editor's handler opened it: its form.
public struct EditableLayer: Equatable, Sendable {
    public var title: String
    public var form: FeatureFormDefinition
    /// Whether its service keeps attachments: the form then offers a file to attach.
    public var takesFiles: Bool

    public init(title: String, form: FeatureFormDefinition, takesFiles: Bool = false) { self.title = title; self.form = form; self.takesFiles = takesFiles }
}

/// What is being edited: a point to add, or a feature of a layer whose values are changed.
public enum EditTarget: Equatable, Sendable {
    case add(GeoPoint)
    /// A line or an area through these points: the layer chosen says which.
    case addShape([GeoPoint])
    /// `values`: the feature's values as the form shows them, by field name.
    case update(layer: String, objectID: Int64, values: [String: String])
}

/// One edit to save, as the editor's handler takes it (`AreaEditor` checks it again and saves it).
public struct EditDraft: Equatable, Sendable {
    public var area: ItemID
    public var layers: [WebMapLayer]
    public var layer: String
    public var kind: FeatureEditAction
    /// The values typed, by field name, as typed (the fields changed, for an update).
    public var values: [String: String]
    /// Files to attach, by path as typed.
    public var attaching: [String]

    public init(area: ItemID, layers: [WebMapLayer], layer: String, kind: FeatureEditAction, values: [String: String] = [:], attaching: [String] = []) {
        self.area = area; self.layers = layers; self.layer = layer; self.kind = kind; self.values = values; self.attaching = attaching
    }
}

/// A feature's form over the map: the layer (chosen, for a new point, when the area has several),
/// then its fields in the order and with the labels its form gives, a coded value chosen with ← →,
/// each value checked by the field's rule before the edit is saved, the reason shown on the field.
public struct FeatureEditor: Equatable, Sendable {
    public var area: ItemID
    public var webMapLayers: [WebMapLayer]
    public var layers: [EditableLayer]
    public var layer: Int
    public var target: EditTarget
    /// The form's entries as shown (the chosen type's domains), after the layer choice if there is one.
    public private(set) var entries: [FeatureFormDefinition.Entry] = []
    /// For each entry with coded values: the codes in the order the choice offers them ("" for none).
    public private(set) var codes: [[String]] = []
    public var fields: Form
    /// The files attached to the feature on this device, a line each (shown under the form).
    public var attached: [String]

    /// The name of the choice that leaves a coded field empty.
    static let none = "—"

    public init(area: ItemID, webMapLayers: [WebMapLayer], layers: [EditableLayer], target: EditTarget, attached: [String] = []) {
        precondition(!layers.isEmpty, "an editor has a layer")
        self.area = area; self.webMapLayers = webMapLayers; self.layers = layers; self.target = target
        self.attached = attached.prefix(20).map { TerminalText.sanitizedLine($0, maxLength: 200) }
        layer = 0
        if case .update(let title, _, _) = target { layer = layers.firstIndex { $0.title == title } ?? 0 }
        fields = Form([Form.Field("Layer", .text(limit: 1))])
        rebuild(keeping: { if case .update(_, _, let values) = target { values } else { [:] } }())
    }

    public var chosenLayer: EditableLayer { layers[layer] }
    public var isNew: Bool {
        switch target {
        case .add, .addShape: true
        case .update: false
        }
    }
    public var isSaving: Bool { fields.isBusy }
    /// Whether the first field chooses the layer.
    var choosesLayer: Bool { isNew && layers.count > 1 }
    private var offset: Int { choosesLayer ? 1 : 0 }

    static let attachLabel = "Attach file"

    /// The path typed in the form's last field, when the layer takes files.
    public var attaching: String {
        guard let last = fields.fields.last, last.label == Self.attachLabel, chosenLayer.takesFiles else { return "" }
        return last.text.trimmingCharacters(in: .whitespaces)
    }

    /// What is typed, by field name (a coded value as its code).
    public var typed: [String: String] {
        var values: [String: String] = [:]
        for (index, entry) in entries.enumerated() {
            let field = fields[index + offset]
            values[entry.field.name] = codes[index].isEmpty ? field.text : (codes[index].indices.contains(field.choice) ? codes[index][field.choice] : "")
        }
        return values
    }

    /// The type chosen, by code, when the layer has types.
    var type: String? {
        guard let typeField = chosenLayer.form.types?.field else { return nil }
        return typed[typeField].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// After a key: a new layer or type chosen gives the fields their form (what is typed kept by field).
    mutating func changed(_ index: Int) {
        if choosesLayer, index == 0, fields[0].choice != layer {
            let kept = typed
            layer = fields[0].choice
            rebuild(keeping: kept)
        } else if entries.indices.contains(index - offset), entries[index - offset].field.name == chosenLayer.form.types?.field {
            rebuild(keeping: typed)
        }
    }

    /// The fields for the chosen layer and type, `values` (by field name) in them; new features
    /// start with the type's defaults.
    private mutating func rebuild(keeping values: [String: String]) {
        let focus = fields.focus
        let form = chosenLayer.form
        var values = values
        func entriesNow() -> [FeatureFormDefinition.Entry] {
            form.entries(ofType: form.types.flatMap { values[$0.field] }.flatMap { $0.isEmpty ? nil : $0 })
        }
        if isNew {
            for (name, value) in form.defaults(ofType: form.types.flatMap { values[$0.field] }) where (values[name] ?? "").isEmpty {
                values[name] = FeatureField.codeText(value) ?? ""
            }
        }
        entries = entriesNow()
        codes = []
        var built: [Form.Field] = []
        if choosesLayer { built.append(Form.Field("Layer", .choice(layers.map(\.title)), choice: layer)) }
        for entry in entries {
            let label = entry.label + (entry.required ? " *" : "")
            let value = values[entry.field.name] ?? ""
            if !entry.field.codedValues.isEmpty {
                let ordered = entry.field.codedValues.keys.sorted { (Double($0) ?? .infinity, $0) < (Double($1) ?? .infinity, $1) }
                let options = (entry.required ? [] : [""]) + ordered
                codes.append(options)
                built.append(Form.Field(label, .choice(options.map { $0.isEmpty ? Self.none : TerminalText.sanitizedLine(entry.field.codedValues[$0] ?? $0, maxLength: 60) }),
                                        choice: options.firstIndex(of: value) ?? 0))
            } else {
                codes.append([])
                built.append(Form.Field(label, Self.kind(of: entry.field), text: value))
            }
        }
        // A file to attach, by its path, where the layer's service keeps attachments.
        if chosenLayer.takesFiles { built.append(Form.Field(Self.attachLabel, .text(limit: 4_096), text: attaching)) }
        fields.fields = built.isEmpty ? [Form.Field("Layer", .choice([chosenLayer.title]))] : built
        fields.focus = min(focus, fields.fields.count - 1)
    }

    /// How a field is typed on the form; its own rule checks the value when it is kept.
    static func kind(of field: FeatureField) -> Form.Kind {
        switch field.type {
        case "esriFieldTypeSmallInteger", "esriFieldTypeInteger", "esriFieldTypeBigInteger":
            // A range of whole numbers inside the domain's (a domain of 0.2 to 0.8 holds none: the
            // field's rule says so when the form is kept).
            let bounds = field.range.flatMap { range -> ClosedRange<Int>? in
                let low = range.lowerBound.rounded(.up).clampedInt(), high = range.upperBound.rounded(.down).clampedInt()
                return low <= high ? low...high : nil
            }
            return .integer(bounds ?? (field.type == "esriFieldTypeSmallInteger" ? Int(Int16.min)...Int(Int16.max) : Int(Int32.min)...Int(Int32.max)))
        case "esriFieldTypeDouble", "esriFieldTypeSingle":
            return .decimal(field.range ?? -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
        case "esriFieldTypeDate", "esriFieldTypeDateOnly":
            return .date
        default:
            return .text(limit: min(field.length ?? FeatureField.largestText, FeatureField.largestText))
        }
    }

    /// The edit the form makes, or why not: the value refused, with the index of its field.
    func draft() -> Result<EditDraft, Refusal> {
        let typed = typed
        // An update sends the fields changed, a new feature every field typed.
        var sent: [String: String] = [:]
        if case .update(_, _, let before) = target {
            for (name, text) in typed where text != (before[name] ?? "") { sent[name] = text }
        } else {
            for (name, text) in typed where !text.trimmingCharacters(in: .whitespaces).isEmpty { sent[name] = text }
        }
        let checked = isNew ? typed : sent
        if case .failure(let problem) = chosenLayer.form.values(checked, ofType: type, requireAll: isNew) {
            let index = entries.firstIndex { $0.field.name == problem.field }.map { $0 + offset } ?? fields.focus
            return .failure(Refusal(sentence: problem.userMessage, field: index))
        }
        let kind: FeatureEditAction = switch target {
        case .add(let point): .add(point)
        case .addShape(let points): .addShape(points)
        case .update(_, let objectID, _): .update(objectID: objectID)
        }
        let files = attaching.isEmpty ? [] : [attaching]
        if case .update = kind, sent.isEmpty, files.isEmpty { return .failure(Refusal(sentence: "Nothing changed: type a new value, or Esc.", field: fields.focus)) }
        return .success(EditDraft(area: area, layers: webMapLayers, layer: chosenLayer.title, kind: kind, values: sent, attaching: files))
    }

    /// The plain mode's `set FIELD VALUE`: the field by its name or label, the value as typed (a
    /// coded value by its name or code); the index of the field set, or why not.
    mutating func set(_ name: String, to value: String) -> Result<Int, Refusal> {
        let wanted = name.trimmingCharacters(in: .whitespaces)
        if choosesLayer, wanted.caseInsensitiveCompare("layer") == .orderedSame {
            guard let chosen = layers.firstIndex(where: { $0.title.caseInsensitiveCompare(value) == .orderedSame }) else {
                return .failure(Refusal(sentence: "There is no layer “\(TerminalText.sanitizedLine(value, maxLength: 60))”; the form offers \(layers.map(\.title).joined(separator: ", ")).", field: 0))
            }
            fields[0].choice = chosen
            return .success(0)
        }
        if chosenLayer.takesFiles, ["attach", Self.attachLabel.lowercased()].contains(wanted.lowercased()) {
            fields.focus = fields.fields.count - 1
            fields.problem = nil
            fields[fields.focus].text = String(value.prefix(4_096))
            return .success(fields.focus)
        }
        guard let found = entries.firstIndex(where: { $0.field.name.caseInsensitiveCompare(wanted) == .orderedSame || $0.label.caseInsensitiveCompare(wanted) == .orderedSame }) else {
            let names = entries.prefix(30).map(\.field.name).joined(separator: ", ")
            return .failure(Refusal(sentence: "The form has no field “\(TerminalText.sanitizedLine(wanted, maxLength: 60))”; it has \(names).", field: fields.focus))
        }
        let index = found + offset
        fields.focus = index
        fields.problem = nil
        if codes[found].isEmpty {
            guard value.count <= Self.kind(of: entries[found].field).longest else {
                return .failure(Refusal(sentence: "\(entries[found].label) holds at most \(Format.grouped(Self.kind(of: entries[found].field).longest)) characters.", field: index))
            }
            fields[index].text = value
            if let problem = fields[index].problem { return .failure(Refusal(sentence: problem, field: index)) }
        } else {
            let typed = value.trimmingCharacters(in: .whitespaces)
            let field = entries[found].field
            guard let choice = codes[found].firstIndex(where: { code in
                code.caseInsensitiveCompare(typed) == .orderedSame
                    || (field.codedValues[code]?.caseInsensitiveCompare(typed) == .orderedSame)
                    || (code.isEmpty && typed.isEmpty)
            }) else {
                return .failure(Refusal(sentence: "\(entries[found].label) must be one of \(codes[found].filter { !$0.isEmpty }.prefix(12).map { field.codedValues[$0] ?? $0 }.joined(separator: ", ")).", field: index))
            }
            fields[index].choice = choice
        }
        return .success(index)
    }

    /// What the form is for, sanitized: "New feature in Places", "Edit Counties 3".
    public var title: String {
        let layer = TerminalText.sanitizedLine(chosenLayer.title, maxLength: 60)
        if case .update(_, let objectID, _) = target { return "Edit \(layer) \(objectID)" }
        return "New feature in \(layer)"
    }

    /// Where a new feature goes ("at 43.70000°N 70.20000°W", "through the ruler's 4 points"); nil
    /// for a feature changed.
    public var placement: String? {
        switch target {
        case .add(let point): "at \(point.degrees(places: 5))"
        case .addShape(let points): "through the ruler's \(points.count) points"
        case .update: nil
        }
    }

    /// Why the form's edit was not made, and the field to put the cursor on.
    struct Refusal: Error {
        var sentence: String
        var field: Int
    }

    /// What the focused field is and takes, for the line under the form: its group, its hint, its
    /// domain's range.
    public var focusedHelp: String? {
        let index = fields.focus - offset
        guard entries.indices.contains(index) else { return nil }
        let entry = entries[index]
        var parts: [String] = []
        if let group = entry.group { parts.append(group) }
        if let hint = entry.hint, !hint.isEmpty { parts.append(hint) }
        if let range = entry.field.range, entry.field.codedValues.isEmpty {
            parts.append("from \(Self.number(range.lowerBound)) to \(Self.number(range.upperBound))")
        }
        if !entry.field.codedValues.isEmpty { parts.append("← → to choose") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
