import Foundation
import MapbookCore

/// A value refused for a field, and why: one sentence naming the field.
public struct FieldProblem: UserFacingError, Equatable, Sendable {
    public let field: String
    public let userMessage: String
}

/// The one rule for what an editor may store in a field (the CLI's `--set`, the plain mode's `set`,
/// the browser's form): the field's type, length, whether it may be empty, its coded values or
/// range, whether it may be edited at all. Text is stored as typed; the screen shows it sanitized.
extension FeatureField {
    /// The largest text mapbook stores in any one field, whatever the field's declared length.
    public static let largestText = 65_536

    /// The name people know the field by, for sentences.
    public var shownName: String { TerminalText.sanitizedLine(alias ?? name, maxLength: 80) }

    /// `typed` as this field's value: numbers as numbers, a date as epoch milliseconds, a coded
    /// value's name as its code, nothing typed as null.
    public func value(typed: String) -> Result<JSONValue, FieldProblem> {
        func refuse(_ why: String) -> Result<JSONValue, FieldProblem> { .failure(FieldProblem(field: name, userMessage: why)) }
        guard editable else { return refuse("\(shownName) is kept by the server and cannot be edited.") }
        let trimmed = typed.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty {
            return nullable ? .success(.null) : refuse("\(shownName) is required.")
        }
        let value: JSONValue
        switch type {
        case "esriFieldTypeString", "esriFieldTypeGUID":
            let limit = min(length ?? Self.largestText, Self.largestText)
            guard typed.count <= limit else { return refuse("\(shownName) holds at most \(Format.grouped(limit)) characters, not \(Format.grouped(typed.count)).") }
            if type == "esriFieldTypeGUID", UUID(uuidString: trimmed.trimmingCharacters(in: CharacterSet(charactersIn: "{}"))) == nil {
                return refuse("\(shownName) must be a GUID such as {0F8E4DB0-8B2E-4F4B-9C66-0D7B1B2E3F40}.")
            }
            value = .string(typed)
        case "esriFieldTypeSmallInteger", "esriFieldTypeInteger", "esriFieldTypeBigInteger":
            let bounds: ClosedRange<Int64> = switch type {
            case "esriFieldTypeSmallInteger": Int64(Int16.min)...Int64(Int16.max)
            case "esriFieldTypeInteger": Int64(Int32.min)...Int64(Int32.max)
            default: -9_007_199_254_740_991...9_007_199_254_740_991
            }
            guard let number = Int64(trimmed) ?? codedNumber(trimmed).flatMap({ Int64(exactly: $0) }), bounds.contains(number) else {
                return refuse("\(shownName) must be a whole number from \(Format.grouped(Int(bounds.lowerBound))) to \(Format.grouped(Int(bounds.upperBound))).")
            }
            value = .number(Double(number))
        case "esriFieldTypeDouble", "esriFieldTypeSingle":
            guard let number = Double(trimmed) ?? codedNumber(trimmed), number.isFinite,
                  type == "esriFieldTypeDouble" || abs(number) <= Double(Float.greatestFiniteMagnitude) else {
                return refuse("\(shownName) must be a number.")
            }
            value = .number(number)
        case "esriFieldTypeDate", "esriFieldTypeDateOnly":
            guard let date = Self.date(trimmed) else {
                return refuse("\(shownName) must be a date from year 1 to 9999, as 2026-11-27 or 2026-11-27T14:30:00Z.")
            }
            value = .number((date.timeIntervalSince1970 * 1000).rounded())
        default:
            return refuse("\(shownName) is a field of type \(TerminalText.sanitizedLine(type.replacingOccurrences(of: "esriFieldType", with: ""), maxLength: 40)), which mapbook does not edit.")
        }
        if !codedValues.isEmpty {
            // The code itself, or the name people see for it.
            let code = FeatureField.codeText(value)
            let byName = codedValues.first { $0.value.caseInsensitiveCompare(trimmed) == .orderedSame }?.key
            guard let chosen = code.flatMap({ codedValues[$0] != nil ? $0 : nil }) ?? byName else {
                let choices = codedValues.sorted { $0.key < $1.key }.prefix(12).map { code, name in
                    code == name ? TerminalText.sanitizedLine(code, maxLength: 40) : "\(TerminalText.sanitizedLine(code, maxLength: 40)) (\(TerminalText.sanitizedLine(name, maxLength: 40)))"
                }
                return refuse("\(shownName) must be one of \(choices.joined(separator: ", "))\(codedValues.count > 12 ? ", …" : "").")
            }
            return .success(value.double != nil && type != "esriFieldTypeString" ? .number(Double(chosen) ?? value.double!) : .string(chosen))
        }
        if let range, let number = value.double, !range.contains(number) {
            return refuse("\(shownName) must be from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound)).")
        }
        return .success(value)
    }

    /// A coded value typed by its name, as a number.
    private func codedNumber(_ typed: String) -> Double? {
        codedValues.first { $0.value.caseInsensitiveCompare(typed) == .orderedSame }.flatMap { Double($0.key) }
    }

    private static func plain(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date and time, years 1 to 9999.
    static func date(_ text: String) -> Date? {
        let calendar = Calendar(identifier: .gregorian)
        var parsed: Date?
        if text.count == 10 {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            if parts.count == 3, (1...9999).contains(parts[0]) {
                var components = DateComponents(timeZone: .gmt, year: parts[0], month: parts[1], day: parts[2])
                components.calendar = calendar
                if components.isValidDate(in: calendar) { parsed = components.date }
            }
        } else {
            let formatter = ISO8601DateFormatter()
            parsed = formatter.date(from: text)
        }
        guard let parsed, let year = calendar.dateComponents(in: .gmt, from: parsed).year, (1...9999).contains(year) else { return nil }
        return parsed
    }
}
