import AppModel
import Foundation
import Testing

@Suite("Forms")
struct FormTests {
    static func form() -> Form {
        Form([Form.Field("Name", .text(limit: 5)), Form.Field("Kind", .choice(["Tree", "Shrub", "Grass"])),
              Form.Field("Height", .decimal(0...120)), Form.Field("Count", .integer(1...99)), Form.Field("Seen", .date),
              Form.Field("PIN", .secret(limit: 4))])
    }

    static func type(_ text: String, into form: inout Form) {
        for character in text { _ = form.apply(.type(character)) }
    }

    @Test func typingKeepsToEachKindAndLimit() {
        var form = Self.form()
        Self.type("Birches", into: &form)
        #expect(form[0].text == "Birch", "five characters at most")
        let outcome1 = form.apply(.type("\u{1B}"))
        #expect(outcome1 == .unchanged, "no control character")
        _ = form.apply(.nextField)
        let outcome2 = form.apply(.type("x"))
        #expect(outcome2 == .unchanged && form[1].shown == "Tree", "a choice is not typed into")
        _ = form.apply(.nextField)
        Self.type("1a2.5", into: &form)
        #expect(form[2].text == "12.5")
        _ = form.apply(.nextField)
        Self.type("4-2", into: &form)
        _ = form.apply(.deleteBackward)
        #expect(form[3].text == "4-")
        _ = form.apply(.nextField); _ = form.apply(.nextField)
        Self.type("12345", into: &form)
        #expect(form[5].text == "1234" && form.focus == 5)
        _ = form.apply(.nextField)
        #expect(form.focus == 0, "Tab goes round")
        _ = form.apply(.previousField)
        #expect(form.focus == 5)
    }

    @Test func aChoiceMovesWithinItsOptions() {
        var form = Self.form()
        // From a text field (no cursor to move), ← → choose in the form's one choice.
        let fromText = form.apply(.adjust(1))
        #expect(fromText == .changed(1) && form[1].shown == "Shrub" && form.focus == 0)
        _ = form.apply(.adjust(-1))
        _ = form.apply(.nextField)
        let outcome3 = form.apply(.adjust(-1))
        #expect(outcome3 == .unchanged, "already the first")
        let outcome4 = form.apply(.adjust(1))
        #expect(outcome4 == .changed(1) && form[1].shown == "Shrub")
        let outcome5 = form.apply(.type("+"))
        #expect(outcome5 == .changed(1) && form[1].shown == "Grass")
        let outcome6 = form.apply(.type("+"))
        #expect(outcome6 == .unchanged)
        let outcome7 = form.apply(.type("-"))
        #expect(outcome7 == .changed(1) && form[1].choice == 1)
    }

    @Test func valuesThatCannotBeTakenAreRefusedWithTheirField() {
        var form = Self.form()
        form[2].text = "130"
        form[3].text = "0"
        form[4].text = "2026-02-30"
        #expect(form[2].problem == "Height: a number from 0 to 120.")
        #expect(form[3].problem == "Count: a whole number from 1 to 99.")
        #expect(form[4].problem == "Seen: a day as YYYY-MM-DD.")
        let refused = form.refuseInvalid()
        #expect(refused && form.focus == 2 && form.problem == "Height: a number from 0 to 120.")
        form[2].text = "12.5"; form[3].text = "3"; form[4].text = "2026-02-28"
        let refusedAgain = form.refuseInvalid()
        #expect(!refusedAgain)
        #expect(Form.Field.day("2026-02-28") != nil && Form.Field.day("2026-2-28") == nil && Form.Field.day("nan") == nil)
        form[0].text = ""
        #expect(form[0].problem == nil, "an empty field is the form's to refuse")
    }

    @Test func aBusyFormTakesNoKeysAndAChangeClearsTheProblem() {
        var form = Self.form()
        form.refuse("A name is needed.", at: 0)
        form.isBusy = true
        let outcome8 = form.apply(.type("a"))
        let outcome9 = form.apply(.cancel)
        let outcome10 = form.apply(.save)
        #expect(outcome8 == .unchanged && outcome9 == .unchanged && outcome10 == .unchanged)
        form.isBusy = false
        let outcome11 = form.apply(.nextField)
        #expect(outcome11 == .unchanged && form.problem == "A name is needed.", "moving keeps it")
        _ = form.apply(.previousField)
        let outcome12 = form.apply(.type("a"))
        #expect(outcome12 == .changed(0) && form.problem == nil)
        let outcome13 = form.apply(.save)
        let outcome14 = form.apply(.cancel)
        #expect(outcome13 == .save && outcome14 == .cancel)
    }
}
