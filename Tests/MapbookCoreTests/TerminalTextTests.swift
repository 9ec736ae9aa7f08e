import MapbookCore
import Testing

@Suite("Untrusted text is made inert before it reaches a terminal")
struct TerminalTextTests {
    @Test(arguments: [
        ("Acadia\u{1B}[2J", "Acadia"),                          // clear screen
        ("\u{1B}]0;pwned\u{07}Bangor", "Bangor"),              // set window title (OSC … BEL)
        ("\u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\", "link"), // hyperlink (OSC … ST)
        ("red\u{1B}[31;1mtext\u{1B}[0m", "redtext"),
        ("\u{9B}31mC1 CSI", "C1 CSI"),
        ("a\u{0}b\u{7}c\u{8}d\u{7F}e", "a b c d e"),
        ("line one\nline two\r\n\tthree", "line one line two three"),
        ("  padded   out  ", "padded out"),
        ("left\u{202E}thgir", "left thgir"),                   // bidi override
        ("\u{1B}", ""),
        ("\u{1B}[", ""),
        ("Café — Bar Harbor ⛵", "Café — Bar Harbor ⛵"),
    ])
    func sanitizedLine(input: String, expected: String) {
        #expect(TerminalText.sanitizedLine(input) == expected)
    }

    @Test func linesAreCapped() {
        let long = String(repeating: "x", count: 1000)
        let result = TerminalText.sanitizedLine(long, maxLength: 10)
        #expect(result == "xxxxxxxxx…")
        #expect(TerminalText.sanitizedLine("short", maxLength: 10) == "short")
    }

    @Test func paragraphsKeepLineBreaksButNotEscapes() {
        #expect(TerminalText.sanitizedParagraphs("one\u{1B}[H\ntwo\r\nthree") == "one\ntwo\nthree")
    }
}

@Suite struct HTMLTextTests {
    @Test func tagsEntitiesAndBlocks() {
        let html = "<div><b>Acadia</b> &amp; Bar&nbsp;Harbor</div><p>Line&#39;s two<br>three &#x2192; four</p>"
        #expect(HTMLText.plainText(html) == "Acadia & Bar Harbor\n\nLine's two\nthree → four")
    }

    @Test func scriptAndStyleContentIsDropped() {
        #expect(HTMLText.plainText("a<script type=x>evil()</script>b<STYLE>p{}</STYLE>c") == "abc")
    }

    @Test func malformedMarkupDoesNotLoseText() {
        #expect(HTMLText.plainText("5 < 6 and &unknown; & <b") == "5 < 6 and &unknown; & <b")
    }

    /// Zero-width and other format characters hide text or make terminals disagree about widths.
    @Test func zeroWidthAndFormatCharactersAreRemoved() {
        let hidden = "Ba\u{200B}ng\u{200C}or\u{200D}\u{2060}\u{FEFF}\u{00AD} Park\u{180E}"
        #expect(TerminalText.sanitizedLine(hidden) == "Bangor Park")
        #expect(TerminalText.sanitizedLine("Lüneburg · 東京 🗺") == "Lüneburg · 東京 🗺")
    }
}
