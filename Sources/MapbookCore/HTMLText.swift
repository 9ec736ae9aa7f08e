import Foundation

/// Item descriptions are HTML. Details screens and the CLI show them as plain text: tags removed,
/// block elements as line breaks, entities decoded, script and style content dropped.
public enum HTMLText {
    public static func plainText(_ html: String) -> String {
        var out = ""
        var i = html.startIndex
        while i < html.endIndex {
            let ch = html[i]
            if ch == "<", let close = html[i...].firstIndex(of: ">") {
                let tag = html[html.index(after: i)..<close].lowercased()
                let name = tag.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber })
                if !tag.hasPrefix("/"), name == "script" || name == "style",
                   let end = html.range(of: "</\(name)", options: .caseInsensitive, range: close..<html.endIndex),
                   let endClose = html[end.upperBound...].firstIndex(of: ">") {
                    i = html.index(after: endClose)
                    continue
                }
                if blockTags.contains(String(name)) { out.append("\n") }
                i = html.index(after: close)
            } else if ch == "&", let semi = html[i...].prefix(12).firstIndex(of: ";"),
                      let decoded = entity(String(html[html.index(after: i)..<semi])) {
                out.append(decoded)
                i = html.index(after: semi)
            } else {
                out.append(ch)
                i = html.index(after: i)
            }
        }
        return collapse(out)
    }

    private static let blockTags: Set<String> = ["br", "p", "div", "li", "ul", "ol", "tr", "h1", "h2", "h3",
                                                 "h4", "h5", "h6", "blockquote", "table", "hr"]

    private static func entity(_ name: String) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos", "#39": return "'"
        case "nbsp": return " "
        case "mdash": return "—"
        case "ndash": return "–"
        case "hellip": return "…"
        case "copy": return "©"
        default:
            let number: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") { number = UInt32(name.dropFirst(2), radix: 16) }
            else if name.hasPrefix("#") { number = UInt32(name.dropFirst()) }
            else { number = nil }
            return number.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
    }

    /// Trims each line, folds inner runs of blanks, keeps at most one empty line in a row.
    private static func collapse(_ text: String) -> String {
        var lines: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
            if line.isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
