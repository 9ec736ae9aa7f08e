import Foundation

/// A form as data: its fields, each of a kind with its limits; which has the cursor; why it was
/// refused; whether it waits for an answer. Every form (a pin, the sign-in, an area of your own)
/// is one of these with what is its own beside it, so typing, moving between fields, choosing and
/// checking values are one rule, and a new form (a feature's attributes) is a list of fields.
public struct Form: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// Typed text, at most `limit` characters.
        case text(limit: Int)
        /// Typed and never shown (a password).
        case secret(limit: Int)
        /// One of `options`, chosen with ← → (or `-` `+`).
        case choice([String])
        /// A whole number within `range`, typed.
        case integer(ClosedRange<Int>)
        /// A number within `range`, typed with a point.
        case decimal(ClosedRange<Double>)
        /// A day, typed as YYYY-MM-DD.
        case date
    }

    public struct Field: Equatable, Sendable {
        public var label: String
        public var kind: Kind
        /// What is typed (every kind but a choice).
        public var text: String
        /// The option chosen (a choice).
        public var choice: Int

        public init(_ label: String, _ kind: Kind, text: String = "", choice: Int = 0) {
            self.label = label; self.kind = kind; self.text = String(text.prefix(kind.longest)); self.choice = choice
        }

        /// What the field shows: the text, or the option chosen (a secret's dots are the renderer's).
        public var shown: String {
            if case .choice(let options) = kind { return options.indices.contains(choice) ? options[choice] : "" }
            return text
        }

        /// Why the value cannot be taken, one sentence naming the field; nil when it can (an empty
        /// field is the form's to refuse, as only it knows which are required).
        public var problem: String? {
            let typed = text.trimmingCharacters(in: .whitespaces)
            guard !typed.isEmpty else { return nil }
            switch kind {
            case .text, .secret, .choice: return nil
            case .integer(let range):
                guard let value = Int(typed), range.contains(value) else { return "\(label): a whole number from \(range.lowerBound) to \(range.upperBound)." }
            case .decimal(let range):
                guard let value = Double(typed), value.isFinite, range.contains(value) else {
                    return "\(label): a number from \(Self.number(range.lowerBound)) to \(Self.number(range.upperBound))."
                }
            case .date:
                guard Self.day(typed) != nil else { return "\(label): a day as YYYY-MM-DD." }
            }
            return nil
        }

        /// `text` as a day (UTC), if it is one.
        public static func day(_ text: String) -> Date? {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                  let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let components = DateComponents(year: year, month: month, day: day)
            guard components.isValidDate(in: calendar) else { return nil }
            return calendar.date(from: components)
        }

        private static func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }

        /// Whether `character` may be typed here: printable, and what the kind takes.
        func accepts(_ character: Character) -> Bool {
            guard character.unicodeScalars.allSatisfy({ $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }) else { return false }
            switch kind {
            case .text, .secret: return true
            case .choice: return false
            case .integer: return character.isASCII && (character.isNumber || character == "-")
            case .decimal: return character.isASCII && (character.isNumber || character == "-" || character == ".")
            case .date: return character.isASCII && (character.isNumber || character == "-")
            }
        }
    }

    /// What an edit did.
    public enum Outcome: Equatable, Sendable {
        /// The value of the field at this index changed.
        case changed(Int)
        /// The cursor moved, or nothing changed.
        case unchanged
        case save, cancel
    }

    public var fields: [Field]
    /// The index of the field with the cursor.
    public var focus = 0
    /// Why the form was refused (or the answer it waited for), one sentence.
    public var problem: String?
    /// It waits for an answer (keeping, signing in): its keys do nothing meanwhile.
    public var isBusy = false

    /// `fields`: at least one.
    public init(_ fields: [Field]) {
        precondition(!fields.isEmpty, "a form has fields")
        self.fields = fields
    }

    public subscript(index: Int) -> Field {
        get { fields[index] }
        set { fields[index] = newValue }
    }

    /// One key's edit: typed characters and Backspace change the field with the cursor (within
    /// its kind and limit), Tab moves between fields, ← → (and `-` `+` in a choice) choose, Enter
    /// and Esc are the form's to act on. A changed field clears the problem shown.
    public mutating func apply(_ edit: FormEdit) -> Outcome {
        guard !isBusy else { return .unchanged }
        var field = fields[focus]
        switch edit {
        case .save: return .save
        case .cancel: return .cancel
        case .set: return .unchanged
        case .nextField:
            focus = (focus + 1) % fields.count
            return .unchanged
        case .previousField:
            focus = (focus + fields.count - 1) % fields.count
            return .unchanged
        case .type("+") where field.kind.isChoice, .type("-") where field.kind.isChoice:
            return choose(focus, by: edit == .type("+") ? 1 : -1)
        case .adjust(let steps):
            // A text field has no cursor to move: ← → there choose in the form's one choice.
            let choices = fields.indices.filter { fields[$0].kind.isChoice }
            guard let target = field.kind.isChoice ? focus : (choices.count == 1 ? choices[0] : nil) else { return .unchanged }
            return choose(target, by: steps)
        case .type(let character):
            guard field.accepts(character), field.text.count < field.kind.longest else { return .unchanged }
            field.text.append(character)
        case .deleteBackward:
            guard !field.text.isEmpty, !field.kind.isChoice else { return .unchanged }
            field.text.removeLast()
        }
        fields[focus] = field
        problem = nil
        return .changed(focus)
    }

    private mutating func choose(_ index: Int, by steps: Int) -> Outcome {
        guard case .choice(let options) = fields[index].kind, !options.isEmpty else { return .unchanged }
        let chosen = min(max(fields[index].choice + steps, 0), options.count - 1)
        guard chosen != fields[index].choice else { return .unchanged }
        fields[index].choice = chosen
        problem = nil
        return .changed(index)
    }

    /// The first field whose value cannot be taken, with why; the cursor goes there.
    public mutating func refuseInvalid() -> Bool {
        guard let index = fields.indices.first(where: { fields[$0].problem != nil }) else { return false }
        focus = index
        problem = fields[index].problem
        return true
    }

    /// Refuses the form: `sentence` shown, the cursor on `field`.
    public mutating func refuse(_ sentence: String, at field: Int) {
        problem = sentence
        focus = field
    }
}

extension Form.Kind {
    var isChoice: Bool { if case .choice = self { true } else { false } }

    /// The most characters it takes.
    var longest: Int {
        switch self {
        case .text(let limit), .secret(let limit): limit
        case .choice: 0
        case .integer, .decimal: 24
        case .date: 10
        }
    }
}
