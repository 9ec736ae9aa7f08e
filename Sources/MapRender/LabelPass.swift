import MapbookCore
import TerminalCanvas
import Geometry

/// A name to place on a map: the cells its text may start at, best first, and how much it matters.
public struct MapLabel: Sendable, Equatable {
    /// The order names are placed in: a higher rank first, so a lower one gives way to it.
    public struct Rank: Sendable, Comparable, Hashable {
        let tier: Int
        let order: Int

        public static func < (a: Rank, b: Rank) -> Bool { (a.tier, a.order) < (b.tier, b.order) }

        /// One of the map's own names (kept from repeating nearby), not one a screen added.
        var isMap: Bool { tier == 1 }

        /// The identified feature's name.
        public static let identified = Rank(tier: 4, order: 0)
        /// A searched place; the selected map area.
        public static let selected = Rank(tier: 3, order: 0)
        /// The user's pins.
        public static let pin = Rank(tier: 2, order: 0)
        /// The map's own names (basemap and feature layers): a higher order (an upper layer) first.
        public static func map(_ order: Int) -> Rank { Rank(tier: 1, order: order) }
    }

    /// A cell of the map, from its top left.
    public struct Spot: Sendable, Hashable {
        public var column: Int, row: Int
        public init(column: Int, row: Int) { self.column = column; self.row = row }
    }

    public var text: String
    /// Where the text's first cell may go, best first.
    public var spots: [Spot]
    public var rank: Rank
    /// Its colour (left out without colours).
    public var color: PaletteIndex
    public var bold: Bool
    /// Without colours, shown in reverse video (a pin's or a searched place's name).
    public var standsOut: Bool
    /// Rows above and below kept free of other names: sparse names over an outline.
    public var clearance: Int
    /// Drawn with a blank cell either side (which is its margin): a marked point's name, set off
    /// from its mark and from the map.
    public var padded: Bool

    public init(text: String, spots: [Spot], rank: Rank, color: PaletteIndex, bold: Bool = false, standsOut: Bool = false,
                clearance: Int = 0, padded: Bool = false) {
        self.text = text; self.spots = spots; self.rank = rank; self.color = color; self.bold = bold
        self.standsOut = standsOut; self.clearance = clearance; self.padded = padded
    }

    /// The cells it is drawn as: its text, padded or not.
    var shown: String { padded ? " \(text) " : text }

    /// A marked point's name, padded: right of its mark, else left of it, else above or below it.
    public static func beside(column: Int, row: Int, text: String, rank: Rank, color: PaletteIndex, standsOut: Bool = true) -> MapLabel {
        let width = DisplayWidth.of(text) + 2
        return MapLabel(text: text, spots: [Spot(column: column + 1, row: row), Spot(column: column - width, row: row),
                                            Spot(column: column - width / 2, row: row - 1), Spot(column: column - width / 2, row: row + 1)],
                        rank: rank, color: color, bold: true, standsOut: standsOut, padded: true)
    }

    /// A line's or an area's name, centred on a cell.
    public static func centred(column: Int, row: Int, text: String, rank: Rank, color: PaletteIndex) -> MapLabel {
        MapLabel(text: text, spots: [Spot(column: column - DisplayWidth.of(text) / 2, row: row)], rank: rank, color: color)
    }
}

/// A glyph marking a point (a pin, a searched place, a feature layer's point), on the map's own
/// background; no name is placed over it.
public struct MapMark: Sendable, Equatable {
    public var column: Int, row: Int
    public var glyph: Character
    /// Its colour (nil: the terminal's own).
    public var color: PaletteIndex?
    /// Without colours, shown in reverse video.
    public var standsOut: Bool

    public init(column: Int, row: Int, glyph: Character, color: PaletteIndex?, standsOut: Bool = false) {
        self.column = column; self.row = row; self.glyph = glyph; self.color = color; self.standsOut = standsOut
    }
}

/// Where a name went, in cells from the map's top left: the cells it covers, padding and all.
public struct PlacedLabel: Sendable, Equatable {
    /// As drawn (padded or not).
    public var text: String
    public var column: Int, row: Int, width: Int
}

/// The last step of every map drawing (the map view, the overview, `snapshot`): after every line,
/// fill and outline, the marks, then every name in one placement pass, then the attribution. So no
/// name overlaps another, a mark or the attribution, and nothing drawn later cuts one.
public struct LabelPass: Sendable {
    public var marks: [MapMark]
    public var labels: [MapLabel]
    /// Shown at the bottom right, already sanitized.
    public var attribution: String?

    public init(marks: [MapMark] = [], labels: [MapLabel] = [], attribution: String? = nil) {
        self.marks = marks; self.labels = labels; self.attribution = attribution
    }

    /// The same marks and names `columns` cells right and `rows` down (a view moved the other
    /// way): what a pan shows at once, before the view's own pass is made.
    public func moved(columns: Int, rows: Int) -> LabelPass {
        var moved = self
        for index in moved.marks.indices { moved.marks[index].column += columns; moved.marks[index].row += rows }
        for index in moved.labels.indices {
            moved.labels[index].spots = moved.labels[index].spots.map { MapLabel.Spot(column: $0.column + columns, row: $0.row + rows) }
        }
        return moved
    }

    /// Draws into `rect`: marks (the last of a cell wins), then names by rank (ties in the order
    /// given), each at its first spot whose cells and a cell either side (a padded name's padding)
    /// are free of marks, names and the attribution, and not within a few rows of a map name of the
    /// same text (a road named in every tile), nor beside a marked place that already names it (a
    /// searched "Bar Harbor, ME, USA" is not doubled by the map's "Bar Harbor"). Returns where each
    /// name went.
    @discardableResult
    public func draw(into frame: inout Frame, rect: Rect, colors: Bool) -> [PlacedLabel] {
        guard !rect.isEmpty else { return [] }
        var occupied = [Bool](repeating: false, count: rect.width * rect.height)
        for mark in marks where (0..<rect.width).contains(mark.column) && (0..<rect.height).contains(mark.row) {
            let (x, y) = (rect.x + mark.column, rect.y + mark.row)
            let below = frame[x, y].style.background
            frame[x, y] = Cell(mark.glyph, style: CellStyle(foreground: colors ? mark.color : nil, background: colors ? below : nil,
                                                            bold: true, reverse: !colors && mark.standsOut))
            occupied[mark.row * rect.width + mark.column] = true
        }
        let credit = attributionText(width: rect.width, height: rect.height)
        if let credit {
            let width = DisplayWidth.of(credit)
            for x in max(rect.width - width - 1, 0)..<rect.width { occupied[(rect.height - 1) * rect.width + x] = true }
        }
        var placed: [PlacedLabel] = []
        var mapNames: [String: [(Int, Int)]] = [:]
        var markNames: [(text: String, column: Int, row: Int)] = []
        let ordered = labels.enumerated().sorted { a, b in
            a.element.rank != b.element.rank ? a.element.rank > b.element.rank : a.offset < b.offset
        }.map(\.element)
        for label in ordered {
            let text = label.shown
            let width = DisplayWidth.of(text), margin = label.padded ? 0 : 1
            guard !label.text.isEmpty, width + 2 * margin <= rect.width else { continue }
            func free(_ spot: MapLabel.Spot) -> Bool {
                guard spot.column >= 0, spot.column + width <= rect.width, spot.row >= 0, spot.row < rect.height else { return false }
                let span = max(spot.column - margin, 0)..<min(spot.column + width + margin, rect.width)
                let rows = max(spot.row - label.clearance, 0)...min(spot.row + label.clearance, rect.height - 1)
                return !rows.contains { row in span.contains { occupied[row * rect.width + $0] } }
            }
            let isMapName = label.rank.isMap
            guard let spot = label.spots.first(where: free),
                  !(isMapName && mapNames[label.text, default: []].contains { abs($0.0 - spot.column) < 24 && abs($0.1 - spot.row) < 6 }),
                  !(isMapName && markNames.contains { Self.names($0.text, label.text) && abs($0.column - spot.column) < 24 && abs($0.row - spot.row) < 6 })
            else { continue }
            for x in max(spot.column - margin, 0)..<min(spot.column + width + margin, rect.width) { occupied[spot.row * rect.width + x] = true }
            let (x, y) = (rect.x + spot.column, rect.y + spot.row)
            let beneath = (x..<(x + width)).compactMap { frame[$0, y].style.background }
            let style = CellStyle(foreground: colors ? label.color : nil, bold: label.bold, reverse: !colors && label.standsOut)
            frame.putOver(text, x: x, y: y, style: style, limit: rect.maxX)
            // Where the map beneath would swallow the name (yellow on light land, blue on the sea), it
            // gets a background of its own: light under dark text, dark under light.
            if colors, let halo = XtermPalette.halo(for: label.color, on: beneath) {
                for cx in x..<(x + width) { frame[cx, y].style.background = halo }
            }
            if isMapName { mapNames[label.text, default: []].append((spot.column, spot.row)) } else { markNames.append((label.text, spot.column, spot.row)) }
            placed.append(PlacedLabel(text: text, column: spot.column, row: spot.row, width: width))
        }
        if let credit {
            frame.put(credit, x: rect.maxX - DisplayWidth.of(credit), y: rect.maxY - 1,
                      style: CellStyle(foreground: colors ? 240 : nil, background: colors ? 255 : nil, dim: !colors), limit: rect.maxX)
        }
        return placed
    }

    /// Whether a marked place's name already says a map's name: the same, or its part before a
    /// comma ("Bar Harbor, ME, USA" says "Bar Harbor", not "Bar").
    static func names(_ marked: String, _ map: String) -> Bool {
        let map = map.lowercased().trimmingCharacters(in: .whitespaces)
        guard !map.isEmpty else { return false }
        let marked = marked.lowercased()
        return marked.trimmingCharacters(in: .whitespaces) == map
            || marked.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) == map } == true
    }

    /// The attribution as it fits: shortened with an ellipsis, never wider than the map less two cells.
    private func attributionText(width: Int, height: Int) -> String? {
        guard let attribution, !attribution.isEmpty, height >= 2, width > 4 else { return nil }
        return DisplayWidth.truncated(attribution, to: width - 2)
    }

    /// Adds a marked point and its name (when it has one), if the point is in a map of `size` cells.
    public mutating func mark(_ point: GeoPoint, glyph: Character, label: String = "", rank: MapLabel.Rank, color: PaletteIndex,
                              projection: MapProjection, size: (columns: Int, rows: Int)) {
        guard let (column, row) = projection.cell(MercatorPoint(point)),
              (0..<size.columns).contains(column), (0..<size.rows).contains(row) else { return }
        marks.append(MapMark(column: column, row: row, glyph: glyph, color: color, standsOut: true))
        if !label.isEmpty {
            labels.append(.beside(column: column, row: row, text: DisplayWidth.truncated(label, to: 40), rank: rank, color: color))
        }
    }

    public static func + (a: LabelPass, b: LabelPass) -> LabelPass {
        LabelPass(marks: a.marks + b.marks, labels: a.labels + b.labels, attribution: a.attribution ?? b.attribution)
    }
}

/// A map drawn but not yet named: its shapes, fills and pictures, and the pass that names it, to
/// which a screen adds its own marks and names (pins, a searched place, the identified feature).
public struct MapPicture: Sendable {
    public var frame: Frame
    public var names: LabelPass
    /// Whether it was drawn in colour (names are too).
    public var colors: Bool

    public init(frame: Frame, names: LabelPass = LabelPass(), colors: Bool = true) {
        self.frame = frame; self.names = names; self.colors = colors
    }

    /// The picture with its names and nothing more (what `snapshot` prints), and where they went.
    public func finished() -> (frame: Frame, placed: [PlacedLabel]) {
        var frame = frame
        let placed = names.draw(into: &frame, rect: frame.bounds, colors: colors)
        return (frame, placed)
    }
}
