import Foundation

/// Just enough of XML to read the plain elements ArcGIS files carry (a tile package's `conf.xml`,
/// a replica's `<GPSyncReplica>` record): elements found by name, entities decoded. Nothing else
/// of XML is needed or trusted; a cut or malformed document yields fewer elements, never a crash.
public enum XMLText {
    /// The text of each `<name …>…</name>`, in order, entities decoded and trimmed.
    public static func elements(_ name: String, in xml: String) -> [String] {
        bodies(name, in: xml).map { decoded($0).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// The inner XML of each `<name …>…</name>` as written (for elements holding elements), at most
    /// `limit`; `<name/>` has none.
    public static func bodies(_ name: String, in xml: String, limit: Int = 10_000) -> [Substring] {
        var found: [Substring] = []
        var rest = xml[...]
        while found.count < limit, let open = rest.range(of: "<" + name) {
            let after = rest[open.upperBound...]
            // `<X` must not match `<XMin`: the name ends at a space, `>` or `/`.
            guard let next = after.first, next == ">" || next == " " || next == "\t" || next == "\n" || next == "/" else {
                rest = after
                continue
            }
            guard let tagEnd = after.firstIndex(of: ">") else { break }
            if tagEnd > after.startIndex, after[after.index(before: tagEnd)] == "/" { rest = after[tagEnd...].dropFirst(); continue }
            let body = after[after.index(after: tagEnd)...]
            guard let close = body.range(of: "</" + name + ">") else { break }
            found.append(body[..<close.lowerBound])
            rest = body[close.upperBound...]
        }
        return found
    }

    /// Text with the five predefined entities decoded.
    public static func decoded(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Text safe inside an element.
    public static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
