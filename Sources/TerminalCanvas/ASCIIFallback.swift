import Foundation

/// Without a UTF-8 locale (or with `--ascii`) the terminal can show ASCII only: ncurses drops what
/// it cannot convert, leaving gaps and stale cells. Every cell is therefore given an ASCII stand-in
/// before it is drawn: punctuation and symbols by likeness, accented letters by their base letter
/// ("Lüneburg" → "Luneburg"), anything else "?"; a wide character's second cell becomes a space.
public enum ASCIIFallback {
    public static func character(for character: Character) -> Character {
        if character.isASCII { return character }
        if let known = table[character] { return known }
        guard let scalar = character.unicodeScalars.first else { return "?" }
        switch scalar.value {
        case 0x2800: return " "                       // an empty braille cell
        case 0x2801...0x28FF: return (scalar.value - 0x2800).nonzeroBitCount > 3 ? "#" : "."
        case 0x2500...0x257F: return boxDrawing(scalar.value)
        case 0x2580...0x259F: return "#"              // block elements
        default: break
        }
        // An accented letter: its base letter, when that is ASCII.
        let base = String(character).decomposedStringWithCanonicalMapping.unicodeScalars.first
        if let base, base.isASCII, base.properties.isAlphabetic { return Character(base) }
        return "?"
    }

    private static func boxDrawing(_ value: UInt32) -> Character {
        switch value {
        case 0x2500, 0x2501, 0x2504, 0x2505, 0x2508, 0x2509, 0x254C, 0x254D, 0x2550: "-"
        case 0x2502, 0x2503, 0x2506, 0x2507, 0x250A, 0x250B, 0x254E, 0x254F, 0x2551: "|"
        default: "+"
        }
    }

    private static let table: [Character: Character] = [
        "…": ".", "·": ".", "•": "*", "‧": ".", "—": "-", "–": "-", "‒": "-", "−": "-", "‐": "-",
        "‘": "'", "’": "'", "‚": "'", "′": "'", "“": "\"", "”": "\"", "„": "\"", "″": "\"", "«": "\"", "»": "\"",
        "‹": "<", "›": ">", "→": ">", "←": "<", "↑": "^", "↓": "v", "↔": "-", "⇧": "^",
        "×": "x", "÷": "/", "©": "c", "®": "r", "™": "t", "§": "S", "¶": "P", "€": "E", "£": "L", "¥": "Y", "²": "2", "³": "3", "¹": "1", "½": "2", "¼": "4", "¾": "4", "±": "+", "°": " ", "µ": "u", "ß": "s", "æ": "a", "Æ": "A", "ø": "o", "Ø": "O",
        "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ħ": "h", "ı": "i", "œ": "o", "Œ": "O", "þ": "p", "ð": "d",
        "◆": "*", "◇": "o", "●": "*", "○": "o", "◌": "o", "◉": "@", "■": "#", "□": "o", "▪": "#", "▫": "o",
        "▲": "^", "△": "^", "▼": "v", "▽": "v", "◀": "<", "▶": ">", "★": "*", "☆": "*", "✓": "v", "✔": "v",
        "✗": "x", "✘": "x", "⚠": "!", "\u{00A0}": " ", "\u{2007}": " ", "\u{2009}": " ", "\u{202F}": " ",
    ]
}

extension Frame {
    /// The frame with every cell ASCII (see `ASCIIFallback`). A cut's "…" becomes "...", into the
    /// two cells after it when they are blank, else over the two before it: a lone "." would read
    /// as the end of a sentence.
    public func asciiOnly() -> Frame {
        var copy = self
        for y in 0..<height {
            for x in 0..<width {
                let cell = self[x, y]
                if cell.character == "…" {
                    let after = x + 2 < width && [self[x + 1, y], self[x + 2, y]].allSatisfy { $0.character == " " }
                    let start = after ? x : Swift.max(x - 2, 0)
                    for dot in start...Swift.min(start + 2, width - 1) { copy[dot, y] = Cell(".", style: self[dot, y].style) }
                } else if cell.isContinuation {
                    copy[x, y] = Cell(" ", style: cell.style)
                } else if !cell.character.isASCII {
                    copy[x, y] = Cell(ASCIIFallback.character(for: cell.character), style: cell.style)
                }
            }
        }
        return copy
    }
}
