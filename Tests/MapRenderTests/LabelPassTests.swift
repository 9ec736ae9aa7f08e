import Foundation
import Testing
import Geometry
@testable import MapRender
import SharedTestData
import TerminalCanvas

/// Every name on a map is placed in one pass: by rank, never over another name, a mark or the
/// attribution, never cut by a line drawn after it, and readable on what lies beneath.
@Suite struct LabelPassTests {
    static let words = ["Bar Harbor", "Ferry dock", "Route 1", "Acadia", "Lunch spot", "Northern Germany Basemap", "東京", "Île d'Orléans",
                        "Portland", "A", "Gulf of Maine", "Mount Desert Island", "Bass Harbor Head Light", "Søndre Land"]
    static let grounds: [PaletteIndex] = [22, 17, 194, 153, 253, 255, 236, 65, 117]
    static let markGlyphs: Set<Character> = ["■", "◉", "@", "●", "o", "+", "⚑", "P", "◆"]

    /// The cells `text` was drawn in from `column`, `row`: each character where it should be.
    static func intact(_ placed: PlacedLabel, in frame: Frame, rect: Rect) -> Bool {
        var x = rect.x + placed.column
        for character in placed.text {
            guard frame[x, rect.y + placed.row].character == character else { return false }
            x += DisplayWidth.of(character)
        }
        return x == rect.x + placed.column + placed.width
    }

    @Test func fiveHundredRandomFramesPlaceNoNameOverAnotherAndNoneIsCut() {
        var random = SplitMix64(state: 20261124)
        for round in 0..<500 {
            let width = Int.random(in: 12...140, using: &random), height = Int.random(in: 4...45, using: &random)
            let colors = round % 5 != 0
            // The map beneath: grounds of several colours and lines in braille.
            var picture = Frame(width: width, height: height)
            for y in 0..<height {
                for x in 0..<width {
                    let braille = Character(Unicode.Scalar(0x2800 + UInt32.random(in: 0...255, using: &random))!)
                    picture[x, y] = Cell(Bool.random(using: &random) ? braille : " ",
                                         style: CellStyle(foreground: 240, background: colors ? Self.grounds[(x / 9 + y / 4 + round) % Self.grounds.count] : nil))
                }
            }
            var names = LabelPass(attribution: Bool.random(using: &random) ? "© OpenStreetMap contributors, © Esri, HERE, Garmin, USGS" : nil)
            var marks: [(Int, Int)] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                let (column, row) = (Int.random(in: -2...width + 2, using: &random), Int.random(in: -1...height, using: &random))
                names.marks.append(MapMark(column: column, row: row, glyph: "■", color: 196))
                marks.append((column, row))
                names.labels.append(.beside(column: column, row: row, text: Self.words.randomElement(using: &random)!,
                                            rank: .map(Int.random(in: 0...3, using: &random)), color: 236, standsOut: false))
            }
            for _ in 0..<Int.random(in: 0...80, using: &random) {
                let text = Self.words.randomElement(using: &random)!
                let (column, row) = (Int.random(in: -10...width + 5, using: &random), Int.random(in: -1...height, using: &random))
                names.labels.append(Bool.random(using: &random)
                    ? .centred(column: column, row: row, text: text, rank: .map(Int.random(in: 0...300_000, using: &random)), color: 24)
                    : MapLabel(text: text, spots: [MapLabel.Spot(column: column, row: row)], rank: .map(Int.random(in: 0...300_000, using: &random)),
                               color: PaletteIndex.random(in: 0...255, using: &random), bold: true))
            }
            // What the map view lays over it, somewhere in and around the view.
            let viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: -68.2, latitude: 44.35)), zoom: Double.random(in: 6...14, using: &random))
            let span = 40 / pow(2, viewport.zoom - 6)
            func somewhere() -> GeoPoint {
                GeoPoint(longitude: -68.2 + Double.random(in: -span...span, using: &random), latitude: 44.35 + Double.random(in: -span / 2...span / 2, using: &random))
            }
            let identified: (geometry: GeoGeometry, title: String)? = switch round % 4 {
            case 0: (.polygons([[[somewhere(), somewhere(), somewhere(), somewhere()]]]), Self.words.randomElement(using: &random)!)
            case 1: (.lines([[somewhere(), somewhere(), somewhere()]]), Self.words.randomElement(using: &random)!)
            case 2: (.points([somewhere()]), Self.words.randomElement(using: &random)!)
            default: nil
            }
            let rulerPoints = (0..<Int.random(in: 0...3, using: &random)).map { _ in somewhere() }
            let overlays = MapOverlays(
                identified: identified,
                ruler: rulerPoints.isEmpty ? nil : MapOverlays.Ruler(path: rulerPoints + [viewport.center.geographic], points: rulerPoints,
                                                                    centre: viewport.center.geographic),
                pins: (0..<Int.random(in: 0...6, using: &random)).map { _ in (Self.words.randomElement(using: &random)!, somewhere()) },
                searched: Bool.random(using: &random) ? (Self.words.randomElement(using: &random)!, somewhere()) : nil)
            var frame = Frame(width: width + 4, height: height + 3)
            let rect = Rect(x: 2, y: 1, width: width, height: height)
            let placed = overlays.draw(over: MapPicture(frame: picture, names: names, colors: colors), viewport: viewport, into: &frame, rect: rect,
                                       theme: MapTheme(), glyphs: round % 7 == 0 ? .ascii : .unicode, colors: colors)

            var taken = Set<Int>()
            for label in placed {
                #expect(label.column >= 0 && label.column + label.width <= width && label.row >= 0 && label.row < height, "round \(round): \(label) outside")
                for x in label.column..<(label.column + label.width) {
                    #expect(taken.insert(label.row * width + x).inserted, "round \(round): \(label) overlaps another name")
                }
                #expect(Self.intact(label, in: frame, rect: rect), "round \(round): \(label) was cut: \(frame.row(at: rect.y + label.row))")
            }
            // The attribution, at the corner, is drawn over any mark there.
            let creditWidth = names.attribution.map { DisplayWidth.of(DisplayWidth.truncated($0, to: width - 2)) + 1 } ?? 0
            for (column, row) in marks where (0..<width).contains(column) && (0..<height).contains(row)
                && !(row == height - 1 && column >= width - creditWidth) {
                #expect(Self.markGlyphs.contains(frame[rect.x + column, rect.y + row].character), "round \(round): a name covers the mark at \(column),\(row)")
            }
            if let credit = names.attribution, width > 4, height >= 2 {
                let shown = DisplayWidth.truncated(credit, to: width - 2)
                #expect(frame.row(at: rect.maxY - 1).hasSuffix(shown), "round \(round): the attribution was cut")
            }
            if Task.isCancelled { return }
        }
    }

    @Test func theIdentifiedFeatureThenTheSearchedPlaceThenPinsThenTheMapsOwnNames() {
        // All want the same cells: each gives way to the one above it.
        var pass = LabelPass()
        pass.labels = [
            MapLabel(text: "Portland", spots: [MapLabel.Spot(column: 12, row: 2)], rank: .map(900_000), color: 236),
            .beside(column: 10, row: 2, text: "Lunch spot", rank: .pin, color: 201),
            .beside(column: 10, row: 2, text: "Bar Harbor", rank: .selected, color: 220),
            .beside(column: 10, row: 2, text: "Ferry dock", rank: .identified, color: 201),
        ]
        var frame = Frame(width: 40, height: 5)
        let placed = pass.draw(into: &frame, rect: frame.bounds, colors: true)
        // The identified feature's name right of its point; the searched place's on the left had no
        // room, so above; the pin's below; the map's own name found no room at all.
        #expect(placed.map(\.text) == [" Ferry dock ", " Bar Harbor ", " Lunch spot "])
        #expect(frame.row(at: 2).hasPrefix(String(repeating: " ", count: 12) + "Ferry dock"))
        #expect(placed.map(\.row) == [2, 1, 3])
    }

    @Test func aPinOnTheSearchedPlaceShowsInsteadOfTheSearchMarker() {
        let viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: -68.2, latitude: 44.35)), zoom: 10)
        let place = GeoPoint(longitude: -68.2, latitude: 44.35), elsewhere = GeoPoint(longitude: -68.1, latitude: 44.4)
        func drawn(pins: [(title: String, point: GeoPoint)]) -> (Frame, [PlacedLabel]) {
            var frame = Frame(width: 60, height: 20)
            let overlays = MapOverlays(pins: pins, searched: ("Bar Harbor", place))
            let placed = overlays.draw(over: nil, viewport: viewport, into: &frame, rect: frame.bounds, theme: MapTheme(), glyphs: .unicode, colors: true)
            return (frame, placed)
        }
        let (searchedOnly, searchedNames) = drawn(pins: [(title: "Lunch spot", point: elsewhere)])
        #expect((0..<20).contains { searchedOnly.row(at: $0).contains("◆") } && searchedNames.map(\.text).contains(" Bar Harbor "))
        // Pinned there: the pin and its title, first; no search marker over it.
        let (pinned, pinnedNames) = drawn(pins: [(title: "Bar Harbor pin", point: place)])
        #expect((0..<20).contains { pinned.row(at: $0).contains("⚑") } && !(0..<20).contains { pinned.row(at: $0).contains("◆") })
        #expect(pinnedNames.first?.text == " Bar Harbor pin ")
    }

    /// The map's own "Bar Harbor" beside the searched "Bar Harbor, ME, USA" would say it twice; a
    /// map name that is another word ("Bar") or far away still shows.
    @Test func aMapNameTheMarkedPlaceAlreadySaysIsNotDoubled() {
        var pass = LabelPass(marks: [MapMark(column: 20, row: 3, glyph: "◆", color: 220)])
        pass.labels = [
            MapLabel(text: "Bar Harbor", spots: [MapLabel.Spot(column: 8, row: 3)], rank: .map(900_000), color: 236),
            MapLabel(text: "Bar", spots: [MapLabel.Spot(column: 2, row: 1)], rank: .map(800_000), color: 236),
            MapLabel(text: "Bar Harbor", spots: [MapLabel.Spot(column: 50, row: 9)], rank: .map(900_000), color: 236),
            .beside(column: 20, row: 3, text: "Bar Harbor, ME, USA", rank: .selected, color: 220),
        ]
        var frame = Frame(width: 80, height: 12)
        let placed = pass.draw(into: &frame, rect: frame.bounds, colors: true)
        #expect(placed.map(\.text) == [" Bar Harbor, ME, USA ", "Bar Harbor", "Bar"], "\(placed.map(\.text))")
        #expect(placed.first { $0.text == "Bar Harbor" }?.row == 9, "the far one")
        #expect(LabelPass.names("Bar Harbor, ME, USA", "bar harbor") && !LabelPass.names("Bangor Mall", "Bangor") && LabelPass.names("Acadia", "Acadia"))
    }

    @Test func aNameAtTheRightEdgeGoesToTheLeftOfItsMark() {
        var pass = LabelPass(marks: [MapMark(column: 36, row: 1, glyph: "⚑", color: 201)])
        pass.labels = [.beside(column: 36, row: 1, text: "Ferry dock", rank: .pin, color: 201)]
        var frame = Frame(width: 40, height: 3)
        pass.draw(into: &frame, rect: frame.bounds, colors: true)
        #expect(frame.row(at: 1) == String(repeating: " ", count: 25) + "Ferry dock ⚑")
    }

    @Test func aNameTheMapWouldSwallowGetsABackgroundOfItsOwn() {
        // Yellow on light green land and blue on the sea: unreadable as they are.
        for (ground, color) in [(PaletteIndex(194), PaletteIndex(220)), (17, 24)] {
            var frame = Frame(width: 20, height: 3)
            frame.fill(frame.bounds, with: Cell(" ", style: CellStyle(background: ground)))
            let pass = LabelPass(labels: [.centred(column: 10, row: 1, text: "Acadia", rank: .selected, color: color)])
            pass.draw(into: &frame, rect: frame.bounds, colors: true)
            let cells = (7..<13).map { frame[$0, 1] }
            #expect(String(cells.map(\.character)) == "Acadia")
            #expect(cells.allSatisfy { $0.style.background != ground && XtermPalette.contrast(color, $0.style.background!) >= 3 })
            // Beside it, the map is as it was.
            #expect(frame[5, 1].style.background == ground)
        }
        // Dark text on light land keeps the land under it.
        var frame = Frame(width: 20, height: 3)
        frame.fill(frame.bounds, with: Cell(" ", style: CellStyle(background: 194)))
        LabelPass(labels: [.centred(column: 10, row: 1, text: "Acadia", rank: .map(0), color: 236)]).draw(into: &frame, rect: frame.bounds, colors: true)
        #expect((7..<13).allSatisfy { frame[$0, 1].style.background == 194 })
    }

    @Test func theAttributionIsShortenedToFitAndNoNameCoversIt() {
        let credit = "© OpenStreetMap contributors, © Esri, HERE, Garmin"
        var pass = LabelPass(attribution: credit)
        pass.labels = [.centred(column: 20, row: 4, text: "Gulf of Maine", rank: .selected, color: 24)]
        var frame = Frame(width: 30, height: 5)
        let placed = pass.draw(into: &frame, rect: frame.bounds, colors: false)
        #expect(placed.isEmpty, "the name wanted the attribution's row")
        #expect(frame.row(at: 4) == "  " + DisplayWidth.truncated(credit, to: 28))
        #expect(frame.row(at: 4).hasSuffix("…"))
    }

    /// Moved, the marks and names are placed where they were, moved; those moved out are not placed.
    @Test func movedMarksAndNamesArePlacedMoved() {
        let pass = LabelPass(marks: [MapMark(column: 3, row: 2, glyph: "◆", color: 196), MapMark(column: 38, row: 1, glyph: "●", color: 21)],
                             labels: [MapLabel.beside(column: 3, row: 2, text: "Dock", rank: .pin, color: 196),
                                      .centred(column: 30, row: 6, text: "Route 1", rank: .map(0), color: 240)])
        var frame = Frame(width: 40, height: 10), moved = Frame(width: 40, height: 10)
        let placed = pass.draw(into: &frame, rect: frame.bounds, colors: true)
        let placedMoved = pass.moved(columns: 5, rows: 2).draw(into: &moved, rect: moved.bounds, colors: true)
        #expect(placedMoved.map { [$0.column, $0.row] } == placed.map { [$0.column + 5, $0.row + 2] })
        #expect(moved[8, 4].character == "◆" && frame[3, 2].character == "◆")
        #expect(!(0..<40).contains { moved[$0, 3].character == "●" }, "the mark at the edge moved out")
        let out = LabelPass(labels: pass.labels).moved(columns: -20, rows: 0).draw(into: &moved, rect: moved.bounds, colors: true)
        #expect(out.map(\.text) == ["Route 1"], "a name moved past the left edge is not placed")
    }

    @Test func theOverviewsAttributionIsReadableOverItsOutlines() {
        // An area whose box runs through the bottom right corner, over a basemap with a credit.
        let areas = [OverviewArea(title: "Corner", extent: GeoExtent(xmin: -69, ymin: 43, xmax: -67, ymax: 45))]
        let overview = OverviewMap(geography: .empty, webMapExtent: GeoExtent(xmin: -71, ymin: 43, xmax: -67, ymax: 47), areas: areas, selected: 0)
        let view = overview.viewExtent!
        let projection = MapProjection(fitting: view, dotWidth: 80, dotHeight: 60)
        var basemap = Frame(width: 40, height: 15)
        basemap.fill(basemap.bounds, with: Cell(" ", style: CellStyle(background: 22)))
        let picture = MapPicture(frame: basemap, names: LabelPass(attribution: "Esri, HERE"))
        var frame = Frame(width: 40, height: 16)
        overview.draw(into: &frame, rect: frame.bounds, title: "t", glyphs: .unicode, colors: true, basemap: (picture, projection))
        #expect(frame.row(at: 15).hasSuffix("Esri, HERE"))
        // Without the credit, the box's lines run where it is.
        var bare = Frame(width: 40, height: 16)
        overview.draw(into: &bare, rect: bare.bounds, title: "t", glyphs: .unicode, colors: true, basemap: (MapPicture(frame: basemap), projection))
        #expect((29..<40).contains { ("\u{2801}"..."\u{28FF}").contains(bare[$0, 15].character) })
    }
}
