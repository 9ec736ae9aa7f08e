import Foundation
import TerminalCanvas

/// A CSS colour as Mapbox GL styles write them: `#rgb`, `#rrggbb`, `#rrggbbaa`, `rgb()`, `rgba()`,
/// `hsl()`, `hsla()` and the common names. Components are 0…255, alpha 0…1.
public struct StyleColor: Sendable, Equatable {
    public var r: Double, g: Double, b: Double, a: Double

    public init(r: Double, g: Double, b: Double, a: Double = 1) {
        self.r = Self.clamp(r, 255); self.g = Self.clamp(g, 255); self.b = Self.clamp(b, 255); self.a = Self.clamp(a, 1)
    }

    public init?(parsing text: String) {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        if s.hasPrefix("#") {
            let hex = Array(s.dropFirst())
            let digits = hex.compactMap { $0.hexDigitValue }
            guard digits.count == hex.count else { return nil }
            switch digits.count {
            case 3, 4:
                let v = digits.map { Double($0 * 17) }
                self.init(r: v[0], g: v[1], b: v[2], a: digits.count == 4 ? v[3] / 255 : 1)
            case 6, 8:
                let v = stride(from: 0, to: digits.count, by: 2).map { Double(digits[$0] * 16 + digits[$0 + 1]) }
                self.init(r: v[0], g: v[1], b: v[2], a: digits.count == 8 ? v[3] / 255 : 1)
            default:
                return nil
            }
            return
        }
        if let open = s.firstIndex(of: "("), s.hasSuffix(")") {
            let name = s[..<open].trimmingCharacters(in: .whitespaces)
            let parts = s[s.index(after: open)..<s.index(before: s.endIndex)]
                .split(whereSeparator: { $0 == "," || $0 == " " || $0 == "/" }).map(String.init)
            func number(_ i: Int) -> Double? {
                guard parts.indices.contains(i) else { return nil }
                let part = parts[i]
                if part.hasSuffix("%") { return Double(part.dropLast()).map { $0 / 100 } }
                return Double(part)
            }
            let alpha = parts.count > 3 ? number(3) ?? 1 : 1
            switch name {
            case "rgb", "rgba":
                guard var r = number(0), var g = number(1), var b = number(2) else { return nil }
                if parts[0].hasSuffix("%") { r *= 255; g *= 255; b *= 255 }
                self.init(r: r, g: g, b: b, a: alpha)
            case "hsl", "hsla":
                guard let h = number(0), let sat = number(1), let light = number(2) else { return nil }
                self = Self.hsl(h, parts[1].hasSuffix("%") ? sat : sat / 100, parts[2].hasSuffix("%") ? light : light / 100, alpha)
            default:
                return nil
            }
            return
        }
        guard let named = Self.names[s] else { return nil }
        self = named
    }

    /// This colour, `amount` of the way to `other`.
    public func mixed(with other: StyleColor, amount t: Double) -> StyleColor {
        StyleColor(r: r + (other.r - r) * t, g: g + (other.g - g) * t, b: b + (other.b - b) * t, a: a + (other.a - a) * t)
    }

    /// This colour seen through `opacity` over `background`.
    public func over(_ background: StyleColor, opacity: Double = 1) -> StyleColor {
        let t = Self.clamp(a * opacity, 1)
        return StyleColor(r: background.r + (r - background.r) * t, g: background.g + (g - background.g) * t,
                          b: background.b + (b - background.b) * t)
    }

    public var paletteIndex: PaletteIndex { XtermPalette.nearest(r: r.clampedInt(in: 0...255), g: g.clampedInt(in: 0...255), b: b.clampedInt(in: 0...255)) }

    var cssString: String { "rgba(\(r),\(g),\(b),\(a))" }

    private static func clamp(_ v: Double, _ limit: Double) -> Double { v.isFinite ? min(max(v, 0), limit) : 0 }

    private static func hsl(_ h: Double, _ s: Double, _ l: Double, _ a: Double) -> StyleColor {
        let hue = (h.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 360
        func channel(_ offset: Double) -> Double {
            let k = (offset + hue * 12).truncatingRemainder(dividingBy: 12)
            let amount = s * min(l, 1 - l)
            return 255 * (l - amount * max(-1, min(k - 3, 9 - k, 1)))
        }
        return StyleColor(r: channel(0), g: channel(8), b: channel(4), a: a)
    }

    private static let names: [String: StyleColor] = [
        "black": StyleColor(r: 0, g: 0, b: 0), "white": StyleColor(r: 255, g: 255, b: 255),
        "red": StyleColor(r: 255, g: 0, b: 0), "green": StyleColor(r: 0, g: 128, b: 0), "blue": StyleColor(r: 0, g: 0, b: 255),
        "yellow": StyleColor(r: 255, g: 255, b: 0), "orange": StyleColor(r: 255, g: 165, b: 0),
        "gray": StyleColor(r: 128, g: 128, b: 128), "grey": StyleColor(r: 128, g: 128, b: 128),
        "silver": StyleColor(r: 192, g: 192, b: 192), "navy": StyleColor(r: 0, g: 0, b: 128),
        "brown": StyleColor(r: 165, g: 42, b: 42), "purple": StyleColor(r: 128, g: 0, b: 128),
        "transparent": StyleColor(r: 0, g: 0, b: 0, a: 0),
    ]
}
