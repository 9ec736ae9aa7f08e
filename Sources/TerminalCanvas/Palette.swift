import Foundation

/// The xterm 256-colour palette: 16 system colours, a 6×6×6 colour cube and 24 greys.
public enum XtermPalette {
    private static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]
    /// xterm's defaults for the 16 system colours.
    private static let systemColours: [(r: Int, g: Int, b: Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]

    /// The RGB value of a palette index (system colours as xterm's defaults).
    public static func rgb(_ index: PaletteIndex) -> (r: Int, g: Int, b: Int) {
        let i = Int(index)
        switch i {
        case 0..<16:
            return systemColours[i]
        case 16..<232:
            let c = i - 16
            return (cubeLevels[c / 36], cubeLevels[(c / 6) % 6], cubeLevels[c % 6])
        default:
            let level = 8 + (i - 232) * 10
            return (level, level, level)
        }
    }

    /// The nearest cube colour or grey to an RGB value.
    public static func nearest(r: Int, g: Int, b: Int) -> PaletteIndex {
        func cubeStep(_ v: Int) -> Int { v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40 }
        let cr = cubeStep(r), cg = cubeStep(g), cb = cubeStep(b)
        let cube = 16 + 36 * cr + 6 * cg + cb
        let grey = min(max((r + g + b) / 3 - 3, 0) / 10, 23)
        let greyIndex = 232 + grey
        return distance(PaletteIndex(cube), r, g, b) <= distance(PaletteIndex(greyIndex), r, g, b)
            ? PaletteIndex(cube) : PaletteIndex(greyIndex)
    }

    /// The nearest of the first `count` (8 or 16) system colours, for terminals without 256.
    public static func nearestSystem(_ index: PaletteIndex, count: Int) -> PaletteIndex {
        if Int(index) < count { return index }
        let c = rgb(index)
        return (0..<PaletteIndex(min(count, 16))).min { distance($0, c.r, c.g, c.b) < distance($1, c.r, c.g, c.b) }!
    }

    /// The WCAG contrast ratio of two palette colours: 1 (the same) to 21 (black on white). Text
    /// wants 3 or more to be read at a glance.
    public static func contrast(_ a: PaletteIndex, _ b: PaletteIndex) -> Double {
        func luminance(_ index: PaletteIndex) -> Double {
            let c = rgb(index)
            func channel(_ v: Int) -> Double {
                let s = Double(v) / 255
                return s <= 0.03928 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)
        }
        let (la, lb) = (luminance(a), luminance(b))
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    /// Below this contrast with what is beneath, a mark or a name gets a background of its own.
    public static let readableContrast = 3.0

    /// The background that makes `color` readable where `beneath` would swallow it (a dark swatch
    /// on a dark card, yellow on light land): light under dark, dark under light; nil when it
    /// reads as it is.
    public static func halo(for color: PaletteIndex, on beneath: [PaletteIndex]) -> PaletteIndex? {
        guard beneath.contains(where: { contrast(color, $0) < readableContrast }) else { return nil }
        let light: PaletteIndex = 255, dark: PaletteIndex = 236
        return contrast(color, light) >= contrast(color, dark) ? light : dark
    }

    private static func distance(_ index: PaletteIndex, _ r: Int, _ g: Int, _ b: Int) -> Int {
        let c = rgb(index)
        return (c.r - r) * (c.r - r) + (c.g - g) * (c.g - g) + (c.b - b) * (c.b - b)
    }
}

/// The colours of the overview map.
public struct MapTheme: Sendable, Equatable {
    public var water: PaletteIndex = 17
    public var neighbourLand: PaletteIndex = 236
    public var neighbourBorder: PaletteIndex = 242
    public var land: PaletteIndex = 22
    public var countyBorder: PaletteIndex = 28
    public var coast: PaletteIndex = 114
    public var webMapExtent: PaletteIndex = 67
    public var area: PaletteIndex = 117
    /// The other areas' outlines while one is selected.
    public var otherArea: PaletteIndex = 66
    public var selectedArea: PaletteIndex = 220
    public var captionBar: PaletteIndex = 237
    public var captionText: PaletteIndex = 252
    /// City names over the world's outline.
    public var cityName: PaletteIndex = 250
    /// The user's pins.
    public var pin: PaletteIndex = 201
    /// The ruler's path, points and card.
    public var ruler: PaletteIndex = 226
    /// A route's line, the step looked at, its start and its end.
    public var route: PaletteIndex = 39
    public var routeStep: PaletteIndex = 226
    public var routeStart: PaletteIndex = 46
    public var routeEnd: PaletteIndex = 196
    /// This device's position and its accuracy circle.
    public var here: PaletteIndex = 45

    public init() {}

    /// For a light terminal background: pale water and land, darker lines.
    public static let light: MapTheme = {
        var theme = MapTheme()
        theme.water = 153
        theme.neighbourLand = 254
        theme.neighbourBorder = 248
        theme.land = 194
        theme.countyBorder = 108
        theme.coast = 28
        theme.webMapExtent = 25
        theme.area = 31
        theme.otherArea = 103
        theme.selectedArea = 166
        theme.captionBar = 252
        theme.captionText = 236
        theme.cityName = 238
        theme.pin = 163
        theme.ruler = 130
        theme.route = 26
        theme.routeStep = 166
        theme.routeStart = 28
        theme.routeEnd = 160
        theme.here = 26
        return theme
    }()
}
