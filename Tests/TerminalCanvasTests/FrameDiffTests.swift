import TerminalCanvas
import Testing

extension Frame {
    /// What a terminal showing this frame shows after `changes` are written: each run's cells in
    /// place (a test-side model of the backend).
    func applying(_ changes: [FrameChange]) -> Frame {
        var result = self
        for change in changes {
            for (offset, cell) in change.cells.enumerated() { result[change.x + offset, change.y] = cell }
        }
        return result
    }
}

@Suite("Frame.changes(from:): what the terminal must be told")
struct FrameDiffTests {
    let red = CellStyle(foreground: 196)

    func frame(_ rows: [String], width: Int = 8) -> Frame {
        var frame = Frame(width: width, height: rows.count)
        for (y, row) in rows.enumerated() { frame.put(row, x: 0, y: y) }
        return frame
    }

    @Test func anIdenticalFrameNeedsNothing() {
        let a = frame(["hello", "world"])
        #expect(a.changes(from: a).isEmpty)
    }

    @Test func withoutAPreviousFrameOrAtAnotherSizeEveryRowIsWrittenInFull() {
        let a = frame(["hello", "world"])
        #expect(a.changes(from: nil) == [FrameChange(x: 0, y: 0, cells: (0..<8).map { a[$0, 0] }),
                                         FrameChange(x: 0, y: 1, cells: (0..<8).map { a[$0, 1] })])
        #expect(a.changes(from: frame(["hello", "world"], width: 9)).count == 2)
        #expect(a.changes(from: frame(["hello"])).count == 2)
    }

    @Test func oneChangedCharacterIsOneCell() {
        let changes = frame(["hello", "wOrld"]).changes(from: frame(["hello", "world"]))
        #expect(changes == [FrameChange(x: 1, y: 1, cells: [Cell("O")])])
    }

    @Test func aStyleOnlyChangeIsAChange() {
        var styled = frame(["hello"])
        styled.put("ell", x: 1, y: 0, style: red)
        #expect(styled.changes(from: frame(["hello"])) == [FrameChange(x: 1, y: 0, cells: "ell".map { Cell($0, style: red) })])
    }

    @Test func separateChangesOnARowAreSeparateRuns() {
        let changes = frame(["Xbcdefg"]).changes(from: frame(["abcdefX"]))
        #expect(changes.map(\.x) == [0, 6])
        #expect(changes.map(\.cells.count) == [1, 1])
    }

    @Test func aWideCharacterTravelsWithItsContinuation() {
        let changes = frame(["a地b"]).changes(from: frame(["axyb"]))
        #expect(changes.count == 1)
        #expect(changes[0].x == 1)
        #expect(changes[0].cells.map(\.character) == ["地", " "])
        #expect(changes[0].cells.map(\.isContinuation) == [false, true])
    }

    @Test func aWideCharacterReplacedByNarrowOnesRewritesBoth() {
        let changes = frame(["axyb"]).changes(from: frame(["a地b"]))
        #expect(changes == [FrameChange(x: 1, y: 0, cells: [Cell("x"), Cell("y")])])
    }

    /// The right half of a wide character changing (its style) rewrites the character itself.
    @Test func aChangedContinuationStartsTheRunAtItsWideCharacter() {
        let before = frame(["a地b"])
        var after = before
        after[2, 0] = Cell(" ", style: red, isContinuation: true)
        let changes = after.changes(from: before)
        #expect(changes.count == 1)
        #expect(changes[0].x == 1)
        #expect(changes[0].cells.first?.character == "地")
    }

    /// For any two frames of one size, writing the changes onto the old one gives the new one, and
    /// no run begins on a continuation cell.
    @Test func applyingTheChangesGivesTheNewFrame() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "b", " ", "地", "图", "é", "─"]
        func random() -> Frame {
            var frame = Frame(width: 12, height: 4)
            for y in 0..<4 {
                let text = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
                frame.put(text, x: Int.random(in: 0...3, using: &generator), y: y,
                          style: Bool.random(using: &generator) ? red : .plain)
            }
            return frame
        }
        for _ in 0..<500 {
            let old = random(), new = random()
            let changes = new.changes(from: old)
            #expect(old.applying(changes) == new)
            #expect(changes.allSatisfy { !$0.cells[0].isContinuation })
            #expect(changes.allSatisfy { run in run.cells.indices.allSatisfy { run.cells[$0] != old[run.x + $0, run.y] || run.cells[$0].isContinuation || $0 + 1 < run.cells.count && run.cells[$0 + 1].isContinuation } })
        }
    }
}

@Suite struct ASCIIFallbackTests {
    @Test(arguments: [("…", "."), ("—", "-"), ("·", "."), ("“", "\""), ("ü", "u"), ("É", "E"), ("ç", "c"), ("ß", "s"),
                      ("→", ">"), ("◆", "*"), ("○", "o"), ("─", "-"), ("│", "|"), ("┼", "+"), ("▕", "#"), ("█", "#"),
                      ("\u{2800}", " "), ("\u{28FF}", "#"), ("\u{2801}", "."), ("中", "?"), ("🗺", "?"), ("a", "a")])
    func standsInByLikeness(_ from: Character, _ to: Character) {
        #expect(ASCIIFallback.character(for: from) == to)
    }

    @Test func aWideCharactersSecondCellBecomesASpace() {
        var frame = Frame(width: 6, height: 1)
        frame.put("中a—", x: 0, y: 0)
        let ascii = frame.asciiOnly()
        #expect(ascii.row(at: 0).hasPrefix("? a-"))
        #expect(ascii.cells.allSatisfy { $0.character.isASCII && !$0.isContinuation })
    }
}
