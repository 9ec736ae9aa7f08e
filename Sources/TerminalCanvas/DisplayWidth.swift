/// How many terminal columns text takes, decided here rather than by the C library's `wcwidth`,
/// whose answer depends on the locale: rendering must not change with the environment.
public enum DisplayWidth {
    /// 0 for combining marks and other zero-width characters, 2 for East Asian wide characters and
    /// emoji, 1 otherwise.
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.value < 0x300 { return first.value < 0x20 || (0x7F..<0xA0).contains(first.value) ? 0 : 1 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return isWide(first.value) || first.properties.isEmojiPresentation ? 2 : 1
    }

    public static func of(_ text: String) -> Int { text.reduce(0) { $0 + of($1) } }

    private static func isWide(_ v: UInt32) -> Bool {
        (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x20000...0x3FFFD).contains(v)
    }

    /// `text` cut to at most `width` columns, ending in "…" when it was cut.
    public static func truncated(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        var result = "", used = 0
        for character in text {
            let w = of(character)
            if used + w > width - 1 { break }
            result.append(character); used += w
        }
        return result + "…"
    }

    /// Word-wraps `text` into lines of at most `width` columns; words longer than a line are split.
    /// Newlines in `text` start new lines; blank lines are kept.
    public static func wrapped(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = "", used = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = String(word)
                var w = of(word)
                if used > 0, used + 1 + w <= width {
                    line += " " + word; used += 1 + w
                    continue
                }
                if used > 0 { lines.append(line); line = ""; used = 0 }
                while w > width {
                    var head = "", headWidth = 0
                    while let c = word.first, headWidth + of(c) <= width { head.append(c); headWidth += of(c); word.removeFirst() }
                    if head.isEmpty { head.append(word.removeFirst()) }
                    lines.append(head)
                    w = of(word)
                }
                line = word; used = w
            }
            lines.append(line)
        }
        return lines
    }
}
