import TerminalCanvas
import Testing

@Suite struct FrameTests {
    @Test func textIsClippedToTheFrameAndTheLimit() {
        var frame = Frame(width: 10, height: 2)
        let end = frame.put("Hello, world", x: 3, y: 0)
        #expect(end == 10)
        #expect(frame.row(at: 0) == "   Hello,")
        frame.put("abcdef", x: -2, y: 1, limit: 3)
        #expect(frame.row(at: 1) == "cde")  // "ab" fall off the left; the limit keeps columns 0...2
        frame.put("xyz", x: 0, y: 5)  // below the frame: ignored
        frame.put("xyz", x: 0, y: -1)
        #expect(frame.text.split(separator: "\n").count == 2)
    }

    @Test func wideCharactersTakeTwoCellsAndAreNeverCutInHalf() {
        var frame = Frame(width: 5, height: 1)
        let end = frame.put("地图x", x: 0, y: 0)
        #expect(end == 5)
        #expect(frame[1, 0].isContinuation)
        #expect(frame.row(at: 0) == "地图x")
        var narrow = Frame(width: 3, height: 1)
        narrow.put("地图", x: 0, y: 0)
        #expect(narrow.row(at: 0) == "地")
        #expect(!narrow[2, 0].isContinuation)
    }

    @Test func controlCharactersAreNeverPlacedInCells() {
        var frame = Frame(width: 20, height: 1)
        frame.put("a\u{1B}[2Jb\u{07}c\u{9B}d", x: 0, y: 0)
        #expect(!frame.cells.contains { $0.character.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } })
        #expect(frame.row(at: 0) == "a[2Jbcd")
    }

    @Test func fillStaysInside() {
        var frame = Frame(width: 4, height: 3)
        frame.fill(Rect(x: -1, y: 1, width: 10, height: 10), with: Cell("#"))
        #expect(frame.text == "\n####\n####")
    }

    @Test func zeroSizedFramesAreFine() {
        var frame = Frame(width: 0, height: 0)
        frame.put("x", x: 0, y: 0)
        frame.fill(Rect(x: 0, y: 0, width: 5, height: 5))
        #expect(frame.text == "")
    }
}

@Suite struct DisplayWidthTests {
    @Test func widths() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("東京") == 4)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("⠿") == 1)
        #expect(DisplayWidth.of("🗺️") == 2)
        #expect(DisplayWidth.of("\u{1B}") == 0)
    }

    @Test func truncationEndsWithAnEllipsisAndFits() {
        #expect(DisplayWidth.truncated("Greater Portland", to: 8) == "Greater…")
        #expect(DisplayWidth.truncated("short", to: 8) == "short")
        #expect(DisplayWidth.truncated("東京東京", to: 4) == "東…")
        #expect(DisplayWidth.truncated("abc", to: 0) == "")
    }

    @Test func wrappingKeepsWordsAndSplitsLongOnes() {
        #expect(DisplayWidth.wrapped("the quick brown fox", width: 9) == ["the quick", "brown fox"])
        #expect(DisplayWidth.wrapped("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
        #expect(DisplayWidth.wrapped("a\n\nb", width: 4) == ["a", "", "b"])
        #expect(DisplayWidth.wrapped("anything", width: 0) == [])
    }
}

@Suite struct PutOverTests {
    /// Names on a map keep the picture's background under each of their cells, also where a
    /// wide character lies, and never write past the limit.
    @Test func textOverAPictureKeepsItsBackgrounds() {
        var frame = Frame(width: 8, height: 1)
        for x in 0..<8 { frame[x, 0] = Cell(" ", style: CellStyle(background: PaletteIndex(20 + x))) }
        let next = frame.putOver("a東b", x: 1, y: 0, style: CellStyle(foreground: 1), limit: 5)
        #expect(next == 5 && frame.row(at: 0).hasPrefix(" a東b"))
        #expect((0..<8).map { frame[$0, 0].style.background } == (0..<8).map { PaletteIndex(20 + $0) })
        #expect(frame[1, 0].style.foreground == 1 && frame[5, 0].style.foreground == nil)
        frame.putOver("xyz", x: -2, y: 0, style: CellStyle(foreground: 2))
        #expect(frame[0, 0].character == "z" && frame[0, 0].style.background == 20)
    }
}

/// What makes a colour readable where it is drawn: nothing where it reads, else a light ground
/// under a dark colour and a dark one under a light colour (a black legend swatch on the dark card).
struct HaloTests {
    @Test func aColourThatReadsNeedsNoHaloAndOneThatDoesNotGetsTheOtherLightness() {
        #expect(XtermPalette.halo(for: 231, on: [16]) == nil, "white on black reads")
        let black = XtermPalette.halo(for: 16, on: [235])
        #expect(black == 255 && XtermPalette.contrast(16, black!) >= XtermPalette.readableContrast)
        let yellow = XtermPalette.halo(for: 227, on: [230])
        #expect(yellow == 236 && XtermPalette.contrast(227, yellow!) >= XtermPalette.readableContrast)
    }
}
