import Foundation

/// The plain mode's lines as a screen reader should say them: units and signs the full screen
/// abbreviates become words ("2.0 MiB" → "2.0 megabytes", "1 h 05 min" → "1 hour 5 minutes",
/// "44.35°N" → "44.35 north", "A → B" → "A to B"). One rewrite, applied to every line the plain
/// mode prints, so the sentences themselves stay shared with the full screen.
enum SpokenText {
    // NSRegularExpression is immutable once made and safe to match from any thread.
    nonisolated(unsafe) private static let rules: [(NSRegularExpression, (([String]) -> String))] = [
        (#"\b(\d+) d (\d+) h\b"#, { "\(count($0[1], "day")) \(count($0[2], "hour"))" }),
        (#"\b(\d+) h (\d+) min\b"#, { "\(count($0[1], "hour")) \(count($0[2], "minute"))" }),
        (#"\b(\d+) min\b"#, { count($0[1], "minute") }),
        (#"(\d[\d.,]*) (B|KiB|MiB|GiB|TiB)\b"#, { "\($0[1]) \(["B": "bytes", "KiB": "kilobytes", "MiB": "megabytes", "GiB": "gigabytes", "TiB": "terabytes"][$0[2]]!)" }),
        (#"(\d[\d.,]*) (km|m|mi|ft)\b"#, { "\($0[1]) \(["km": "kilometres", "m": "metres", "mi": "miles", "ft": "feet"][$0[2]]!)" }),
        (#"(\d[\d.]*)°([NSEW])"#, { "\($0[1]) \(["N": "north", "S": "south", "E": "east", "W": "west"][$0[2]]!)" }),
        (#" → "#, { _ in " to " }),
        (#" · "#, { _ in ", " }),
    ].map { (try! NSRegularExpression(pattern: $0.0), $0.1) }

    static func words(_ line: String) -> String {
        var text = line
        for (pattern, replacement) in rules {
            let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
            // From the end, so earlier ranges stay where they were.
            for match in matches.reversed() {
                let groups = (0..<match.numberOfRanges).map { index in
                    Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
                }
                guard let range = Range(match.range, in: text) else { continue }
                text.replaceSubrange(range, with: replacement(groups))
            }
        }
        return text
    }

    /// "1 hour", "5 minutes": the number without leading zeros, the unit in the number's form.
    private static func count(_ digits: String, _ unit: String) -> String {
        let number = Int(digits) ?? 0
        return "\(number) \(unit)\(number == 1 ? "" : "s")"
    }
}
