import Foundation

/// Text from the network is untrusted: it may carry escape sequences that repaint, retitle or wedge a
/// terminal, or be long enough to drown a screen. Everything shown passes through here first.
public enum TerminalText {
    /// One line of display text: escape sequences removed, other control characters (C0, DEL, C1) and
    /// line breaks turned into spaces, runs of white space folded, at most `maxLength` characters.
    public static func sanitizedLine(_ text: String, maxLength: Int = 512) -> String {
        var out = ""
        var lastWasSpace = true
        for ch in strippingEscapes(text) {
            if ch.isTextual {
                out.append(ch)
                lastWasSpace = false
            } else if !lastWasSpace {
                out.append(" ")
                lastWasSpace = true
            }
        }
        while out.last == " " { out.removeLast() }
        return truncated(out, to: maxLength)
    }

    /// Multi-line text (descriptions): like `sanitizedLine` per line, keeping line breaks.
    public static func sanitizedParagraphs(_ text: String, maxLength: Int = 16_384) -> String {
        let lines = strippingEscapes(text)
            .split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { sanitizedLine(String($0), maxLength: maxLength) }
        return truncated(lines.joined(separator: "\n"), to: maxLength)
    }

    /// Cuts to `length` characters, ending with `…` when anything was cut.
    public static func truncated(_ text: String, to length: Int) -> String {
        guard length > 0 else { return "" }
        guard text.count > length else { return text }
        return String(text.prefix(length - 1)) + "…"
    }

    /// Removes ESC-introduced sequences (CSI, OSC, DCS and two-byte escapes) and their C1 forms, so
    /// that no parameter bytes of a sequence survive as visible garbage, and format characters.
    static func strippingEscapes(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let s = scalars.next() {
            switch s.value {
            case 0x1B:  // ESC
                guard let next = scalars.next() else { break }
                switch next.value {
                case 0x5B: skipCSI(&scalars)                           // ESC [
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F: skipString(&scalars) // ESC ] P X ^ _
                default: break                                         // two-byte escape: drop both
                }
            case 0x9B: skipCSI(&scalars)
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F: skipString(&scalars)
            // Bidi controls reorder what follows on the screen: they become a space (see isTextual).
            case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: out.append(s)
            // Other format characters (Unicode category Cf) go without a trace: zero-width spaces
            // and joiners hide text or make terminals disagree about widths; also BOM, soft hyphen.
            case _ where s.properties.generalCategory == .format: continue
            default: out.append(s)
            }
        }
        return String(out)
    }

    /// CSI: parameter and intermediate bytes up to a final byte in 0x40–0x7E.
    private static func skipCSI(_ it: inout String.UnicodeScalarView.Iterator) {
        while let s = it.next() {
            if (0x40...0x7E).contains(s.value) { return }
            if !(0x20...0x3F).contains(s.value) { return }
        }
    }

    /// OSC/DCS/SOS/PM/APC: everything up to BEL, ST (ESC \) or the C1 ST.
    private static func skipString(_ it: inout String.UnicodeScalarView.Iterator) {
        while let s = it.next() {
            if s.value == 0x07 || s.value == 0x9C { return }
            if s.value == 0x1B { _ = it.next(); return }
        }
    }
}

private extension Character {
    /// Printable: not a control character, not a line or paragraph separator, not a bidi control
    /// (other format characters are gone already: see `strippingEscapes`).
    var isTextual: Bool {
        for s in unicodeScalars {
            switch s.value {
            case 0x00...0x20, 0x7F...0xA0: return false  // controls; spaces fold separately
            case 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return false
            default: continue
            }
        }
        return true
    }
}
