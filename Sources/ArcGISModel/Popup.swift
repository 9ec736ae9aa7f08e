import Foundation
import MapbookCore

/// A web map's `popupInfo` for a layer: the title template, the fields shown (with their labels
/// and formats), and the description.
public struct PopupInfo: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var label: String?
        public var visible: Bool
        /// `format.places`: digits after the point.
        public var places: Int?
        public var digitSeparator: Bool
        /// `format.dateFormat`: `shortDate`, `longMonthDayYear`, `shortDateShortTime`, …
        public var dateFormat: String?

        public init(name: String, label: String? = nil, visible: Bool = true, places: Int? = nil, digitSeparator: Bool = false,
                    dateFormat: String? = nil) {
            self.name = name; self.label = label; self.visible = visible; self.places = places
            self.digitSeparator = digitSeparator; self.dateFormat = dateFormat
        }
    }

    public var title: String?
    public var fields: [Field]
    public var description: String?

    public init(title: String?, fields: [Field], description: String? = nil) {
        self.title = title; self.fields = fields; self.description = description
    }

    public init?(json: JSONValue) {
        guard json.object != nil else { return nil }
        let fields = (json["fieldInfos"]?.array ?? []).compactMap { info -> Field? in
            guard let name = info["fieldName"]?.string else { return nil }
            let format = info["format"]
            return Field(name: name, label: info["label"]?.string, visible: info["visible"]?.bool ?? true,
                         places: format?["places"]?.int64.map { Int(min(max($0, 0), 10)) }, digitSeparator: format?["digitSeparator"]?.bool ?? false,
                         dateFormat: format?["dateFormat"]?.string)
        }
        self.init(title: json["title"]?.string, fields: fields, description: json["description"]?.string)
    }
}

/// What a popup card shows: a title, rows of label and value, and text; every string sanitized for
/// the terminal.
public struct PopupCard: Sendable, Equatable {
    public var layer: String
    public var title: String
    public var rows: [Row]
    public var text: String?

    public struct Row: Sendable, Equatable {
        public var label: String
        public var value: String
        public init(label: String, value: String) { self.label = label; self.value = value }
    }

    public init(layer: String, title: String, rows: [Row], text: String? = nil) {
        self.layer = layer; self.title = title; self.rows = rows; self.text = text
    }

    /// A feature's card: with `popup`, its title template, visible fields and description; without,
    /// the layer's name and every attribute. Fields the schema lacks show as they came; template
    /// names of unknown fields become empty.
    public static func make(layer: String, attributes: FeatureAttributes, fields: [FeatureField], popup: PopupInfo?,
                            displayField: String? = nil) -> PopupCard {
        let layerName = TerminalText.sanitizedLine(layer, maxLength: 80)
        func field(_ name: String) -> FeatureField? { fields.first { $0.name == name } ?? fields.first { $0.name.lowercased() == name.lowercased() } }
        func attribute(_ name: String) -> JSONValue? {
            attributes[name] ?? attributes.first { $0.key.lowercased() == name.lowercased() }?.value
        }
        func formatted(_ name: String) -> String {
            let info = popup?.fields.first { $0.name.lowercased() == name.lowercased() }
            return PopupFormat.value(attribute(name), field: field(name), info: info)
        }
        guard let popup else {
            let ordered = fields.map(\.name).filter { attributes[$0] != nil } + attributes.keys.sorted().filter { name in !fields.contains { $0.name == name } }
            let rows = ordered.map { name in
                Row(label: TerminalText.sanitizedLine(field(name)?.alias ?? name, maxLength: 60), value: formatted(name))
            }
            let title = displayField.map(formatted).flatMap { $0.isEmpty ? nil : $0 } ?? layerName
            return PopupCard(layer: layerName, title: title, rows: rows)
        }
        let title = popup.title.map { PopupFormat.substitute($0, with: formatted) }.map { TerminalText.sanitizedLine($0, maxLength: 120) }
        let rows = popup.fields.filter(\.visible).map { info in
            Row(label: TerminalText.sanitizedLine(info.label ?? field(info.name)?.alias ?? info.name, maxLength: 60), value: formatted(info.name))
        }
        let text = popup.description.map { HTMLText.plainText(PopupFormat.substitute($0, with: formatted)) }
            .map { TerminalText.sanitizedParagraphs($0, maxLength: 4000).trimmingCharacters(in: .whitespacesAndNewlines) }
            .flatMap { $0.isEmpty ? nil : $0 }
        return PopupCard(layer: layerName, title: title.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? layerName,
                         rows: rows, text: text)
    }
}

extension PopupCard {
    /// Rows for a feature's heights (Z) and measures (M), after its attributes: a point's value, or
    /// the lowest and highest of a line's or area's points.
    public static func measureRows(z: [Double]?, m: [Double]?) -> [Row] {
        func row(_ label: String, _ values: [Double]?) -> Row? {
            let known = (values ?? []).filter(\.isFinite)
            guard let low = known.min(), let high = known.max() else { return nil }
            // To the millimetre: a grid's steps show as long decimals otherwise.
            func text(_ value: Double) -> String { PopupFormat.number((value * 1000).rounded() / 1000, places: nil, separator: true) }
            return Row(label: label, value: low == high ? text(low) : "\(text(low)) to \(text(high))")
        }
        return [row("Height (Z)", z), row("Measure (M)", m)].compactMap { $0 }
    }
}

/// How popups write values: numbers with their places and separators, dates from epoch milliseconds
/// or ISO text, everything sanitized.
public enum PopupFormat {
    /// `{FIELD}` replaced by each field's formatted value (unknown fields by nothing).
    public static func substitute(_ template: String, with value: (String) -> String) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let name = rest[rest.index(after: open)..<close]
            out += name.isEmpty || name.contains("{") ? String(rest[open...close]) : value(String(name))
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    public static func value(_ value: JSONValue?, field: FeatureField?, info: PopupInfo.Field?) -> String {
        guard let value else { return "" }
        if let field, !field.codedValues.isEmpty, let code = FeatureField.codeText(value), let name = field.codedValues[code] {
            return TerminalText.sanitizedLine(name, maxLength: 500)
        }
        if field?.isDate == true || info?.dateFormat != nil, let date = date(value) {
            return self.date(date, format: info?.dateFormat)
        }
        switch value {
        case .null: return ""
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            guard n.isFinite else { return "" }
            return number(n, places: info?.places, separator: info?.digitSeparator ?? false)
        case .string(let s): return TerminalText.sanitizedLine(s, maxLength: 500)
        case .array, .object: return ""
        }
    }

    static func date(_ value: JSONValue) -> Date? {
        switch value {
        case .number(let n) where n.isFinite && abs(n) < 1e15: return Date(timeIntervalSince1970: n / 1000)
        case .string(let s):
            let trimmed = s.trimmingCharacters(in: .whitespaces)
            if let millis = Double(trimmed), abs(millis) < 1e15 { return Date(timeIntervalSince1970: millis / 1000) }
            for style in [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle().year().month().day()] {
                if let date = try? style.parse(trimmed) { return date }
            }
            return nil
        default: return nil
        }
    }

    /// Dates in UTC, as the service stores them, with the time when the format has one.
    static func date(_ date: Date, format: String?) -> String {
        Format.date(date, time: format?.lowercased().contains("time") == true)
    }

    /// A number with `places` digits after the point (as it came when not given) and, with
    /// `separator`, commas between thousands.
    public static func number(_ n: Double, places: Int?, separator: Bool) -> String {
        var text: String
        if let places {
            text = String(format: "%.\(places)f", n)
        } else {
            text = n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        }
        guard separator else { return text }
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var whole = String(parts[0])
        var grouped = ""
        while whole.count > 3 {
            grouped = "," + whole.suffix(3) + grouped
            whole.removeLast(3)
        }
        grouped = whole + grouped
        return (negative ? "-" : "") + grouped + (parts.count > 1 ? "." + parts[1] : "")
    }
}
