import Foundation

/// Human-readable numbers in the forms mapbook prints everywhere (lists, details, CLI).
public enum Format {
    /// Binary units, one decimal from KiB up: `512 B`, `42.1 MiB`.
    public static func bytes(_ count: Int64) -> String {
        if count < 1024 { return "\(max(count, 0)) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        // Round first so 1023.96 KiB becomes 1.0 MiB rather than "1024.0 KiB".
        if (value * 10).rounded() / 10 >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return String(format: "%.1f %@", value, units[unit])
    }

    /// Two sizes to be compared in one sentence: rounded as usual unless that would print them the
    /// same, then both in exact bytes (`3,400,000 bytes` against `3,401,000 bytes`).
    public static func bytes(_ a: Int64, against b: Int64) -> (String, String) {
        let (shortA, shortB) = (bytes(a), bytes(b))
        guard shortA == shortB, a != b else { return (shortA, shortB) }
        return ("\(grouped(Int(a))) bytes", "\(grouped(Int(b))) bytes")
    }

    /// `-70.6210, 43.5480 — -70.0500, 43.9300 (lon, lat)`.
    /// `288895` → `288,895`.
    public static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (number < 0 ? "-" : "") + out
    }

    /// "850 m", "12.3 km", "143 km" (a server's length past a billion km is not believed further).
    public static func distance(_ meters: Double) -> String {
        if meters < 1000 { return "\(meters.clampedInt(in: 0...1000)) m" }
        return meters < 100_000 ? String(format: "%.1f km", meters / 1000) : "\((meters / 1000).clampedInt(in: 0...Self.largestShown)) km"
    }

    /// "45 min", "2 h 01 min", "1 d 22 h": how long a drive takes (at most `largestShown` minutes).
    public static func duration(minutes: Double) -> String {
        let total = minutes.clampedInt(in: 0...Self.largestShown)
        if total < 60 { return "\(max(total, minutes > 0 ? 1 : 0)) min" }
        if total < 24 * 60 { return String(format: "%d h %02d min", total / 60, total % 60) }
        let hours = (total + 30) / 60
        return "\(hours / 24) d \(hours % 24) h"
    }

    /// "47%": a share of a whole, rounded down so 100% means done; 0…1 outside is brought in.
    public static func percent(_ fraction: Double) -> String {
        "\((fraction * 100).clampedInt(in: 0...100, rounding: .down))%"
    }

    /// "1:24,000": a map scale by its denominator.
    public static func scale(_ denominator: Double) -> String {
        "1:\(grouped(denominator.clampedInt(in: 1...largestShown)))"
    }

    /// The largest count a sentence shows as it is: a billion (a server saying more is not believed further).
    public static let largestShown = 1_000_000_000

    /// `2024-05-03`, or with `time` `2024-05-03 14:07 UTC`.
    public static func date(_ date: Date, time: Bool = false) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let day = String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
        return time ? day + String(format: " %02d:%02d UTC", c.hour ?? 0, c.minute ?? 0) : day
    }

    /// `14:07 EST`: a time of day where the user is (an arrival).
    public static func clock(_ date: Date, in timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0) + (timeZone.abbreviation(for: date).map { " " + $0 } ?? "")
    }

    /// RFC 3339 / ISO 8601 in UTC with seconds, for JSON output.
    public static func timestamp(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date)
    }
}
