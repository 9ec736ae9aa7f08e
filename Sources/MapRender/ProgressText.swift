import Foundation
import MapbookCore
import TerminalCanvas

/// A download's progress as text, the same in the list, the details and the command line:
/// `▕████▍    ▏ 47%  3.1/6.6 MiB  1.2 MiB/s  0:03`.
public enum ProgressText {
    private static let eighths: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// A bar `width` cells wide (the end caps included), in eighths of a cell; `[###-   ]` in ASCII.
    public static func bar(fraction: Double?, width: Int, ascii: Bool) -> String {
        let inner = max(width - 2, 1)
        let part = min(max(fraction ?? 0, 0), 1) * Double(inner)
        var full = Int(part)
        var body = ""
        if ascii {
            body = String(repeating: "#", count: full)
            if full < inner, part - Double(full) >= 0.5 { body += "-"; full += 1 }
            return "[" + body + String(repeating: " ", count: inner - full) + "]"
        }
        body = String(repeating: "█", count: full)
        let eighth = ((part - Double(full)) * 8).clampedInt(in: 0...8, rounding: .towardZero)
        if full < inner, eighth > 0 { body.append(eighths[eighth - 1]); full += 1 }
        return "▕" + body + String(repeating: " ", count: inner - full) + "▏"
    }

    /// `47%  3.1/6.6 MiB  1.2 MiB/s  0:03`; parts that are not known yet are left out. Once the
    /// packages are in and the feature layers are being copied (`copied` of `layers`):
    /// `6.6 MiB  copying layers 1/2`.
    public static func figures(bytes: Int64, total: Int64?, bytesPerSecond: Double?, copied: Int? = nil, layers: Int? = nil) -> String {
        if let copied, let layers {
            return "\(Format.bytes(total ?? bytes))  copying layers \(min(copied + 1, layers))/\(layers)"
        }
        var parts: [String] = []
        if let total, total > 0 {
            parts.append(Format.percent(Double(bytes) / Double(total)))
            parts.append(amounts(bytes, of: total))
        } else {
            parts.append(Format.bytes(bytes))
        }
        if let rate = bytesPerSecond, rate > 0 {
            parts.append(Format.bytes(Int64(rate.clampedInt(in: 0...Int.max))) + "/s")
            if let total, total > bytes { parts.append(duration(Double(total - bytes) / rate)) }
        }
        return parts.joined(separator: "  ")
    }

    /// The figures that fit in `width` cells, dropping first the amounts (`3.1/6.6 MiB`), then the
    /// rate, so the percentage and the time left are the last to go.
    public static func figures(bytes: Int64, total: Int64?, bytesPerSecond: Double?, fitting width: Int) -> String {
        let full = figures(bytes: bytes, total: total, bytesPerSecond: bytesPerSecond)
        guard DisplayWidth.of(full) > width, let total, total > 0 else { return full }
        let percent = Format.percent(Double(bytes) / Double(total))
        let rate = bytesPerSecond.flatMap { $0 > 0 ? Format.bytes(Int64($0.clampedInt(in: 0...Int.max))) + "/s" : nil }
        let left = bytesPerSecond.flatMap { $0 > 0 && total > bytes ? duration(Double(total - bytes) / $0) : nil }
        let candidates = [[percent, rate, left], [percent, left], [percent]].map { $0.compactMap { $0 }.joined(separator: "  ") }
        return candidates.first { DisplayWidth.of($0) <= width } ?? percent
    }

    /// `3.1/6.6 MiB` when both are in the same unit, else `512 KiB/6.6 MiB`.
    static func amounts(_ bytes: Int64, of total: Int64) -> String {
        let done = Format.bytes(bytes), whole = Format.bytes(total)
        let unit = whole.split(separator: " ").last, doneUnit = done.split(separator: " ").last
        guard unit == doneUnit, let number = done.split(separator: " ").first else { return "\(done)/\(whole)" }
        return "\(number)/\(whole)"
    }

    /// `0:03`, `12:40`, `1:02:03`.
    public static func duration(_ seconds: Double) -> String {
        let s = seconds.clampedInt(in: 0...359_999, rounding: .up)
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
