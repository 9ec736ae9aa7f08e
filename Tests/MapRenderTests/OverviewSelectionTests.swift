import MapbookCore
import TerminalCanvas
import Testing
@testable import MapRender
import Geometry

/// The overview makes the selected area impossible to miss: its outline in the accent colour over
/// the others (dimmed), its name beside it; and an outline over a basemap picture keeps the
/// picture's background (no black cells).
@Suite struct OverviewSelectionTests {
    let areas = [OverviewArea(title: "West", extent: GeoExtent(xmin: -71, ymin: 43, xmax: -70, ymax: 44)),
                 OverviewArea(title: "East", extent: GeoExtent(xmin: -68, ymin: 44, xmax: -67, ymax: 45))]
    let theme = MapTheme()

    private func colours(_ frame: Frame) -> Set<PaletteIndex> {
        Set(frame.cells.filter { ("\u{2801}"..."\u{28FF}").contains($0.character) }.compactMap(\.style.foreground))
    }

    @Test func theSelectedAreaIsInTheAccentColourAndNamedTheOthersDimmed() throws {
        let overview = OverviewMap(geography: .empty, webMapExtent: nil, areas: areas, selected: 1)
        var frame = Frame(width: 60, height: 20)
        overview.draw(into: &frame, rect: frame.bounds, title: "t", glyphs: .unicode, colors: true)
        #expect(colours(frame).contains(theme.selectedArea) && colours(frame).contains(theme.otherArea))
        #expect(!colours(frame).contains(theme.area), "the others are dimmed while one is selected")
        let named = try #require((1..<20).first { frame.row(at: $0).contains("East") })
        #expect(frame.row(at: named).contains("East"))
        let nothing = OverviewMap(geography: .empty, webMapExtent: nil, areas: areas, selected: nil)
        var plain = Frame(width: 60, height: 20)
        nothing.draw(into: &plain, rect: plain.bounds, title: "t", glyphs: .unicode, colors: true)
        #expect(colours(plain) == [theme.area])
    }

    @Test func outlinesOverABasemapKeepItsBackground() throws {
        let overview = OverviewMap(geography: .empty, webMapExtent: nil, areas: areas, selected: 0)
        let view = try #require(overview.viewExtent)
        var basemap = Frame(width: 60, height: 19)
        basemap.fill(basemap.bounds, with: Cell(" ", style: CellStyle(background: 22)))
        let projection = MapProjection(fitting: view, dotWidth: 120, dotHeight: 76)
        var frame = Frame(width: 60, height: 20)
        overview.draw(into: &frame, rect: frame.bounds, title: "t", glyphs: .unicode, colors: true, basemap: (MapPicture(frame: basemap), projection))
        let lines = (1..<20).flatMap { y in (0..<60).map { frame[$0, y] } }.filter { ("\u{2801}"..."\u{28FF}").contains($0.character) }
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.style.background == 22 }, "no black cells under the outlines")
        let label = (1..<20).compactMap { y in frame.row(at: y).range(of: "West").map { (y, frame.row(at: y).distance(from: frame.row(at: y).startIndex, to: $0.lowerBound)) } }.first
        let (y, x) = try #require(label)
        #expect(frame[x, y].style.background == 22, "the name keeps the picture's background too")
    }
}

/// The bundled outline is Maine's only under a web map in or near Maine; elsewhere the overview
/// draws the world's countries at the web map's own extent.
@Suite struct OverviewRegionTests {
    static func square(_ x: Double, _ y: Double, _ size: Double) -> GeoFeature {
        GeoFeature(geometry: .polygons([[[GeoPoint(longitude: x, latitude: y), GeoPoint(longitude: x + size, latitude: y),
                                          GeoPoint(longitude: x + size, latitude: y + size), GeoPoint(longitude: x, latitude: y + size),
                                          GeoPoint(longitude: x, latitude: y)]]]))
    }

    let geography = OverviewGeography(land: [square(-71, 43, 4)], world: [square(5, 47, 10)])
    let maine = GeoExtent(xmin: -71.3, ymin: 42.2, xmax: -66.9, ymax: 47.5)
    let germany = GeoExtent(xmin: 5.9, ymin: 47.3, xmax: 15.0, ymax: 55.1)

    @Test func maineIsRegionalGermanyAndTheWholeContinentAreNot() {
        #expect(geography.isRegional(maine))
        #expect(!geography.isRegional(germany))
        #expect(!geography.isRegional(GeoExtent(xmin: -125, ymin: 24, xmax: -66, ymax: 50)), "the whole country is the world's")
    }

    @Test func aWebMapOfGermanyIsDrawnOverTheWorld() {
        let theme = MapTheme()
        func landCells(_ geography: OverviewGeography, _ extent: GeoExtent) -> Int {
            var frame = Frame(width: 40, height: 16)
            OverviewMap(geography: geography, webMapExtent: extent, areas: [], selected: nil)
                .draw(into: &frame, rect: frame.bounds, title: "t", glyphs: .unicode, colors: true)
            return frame.cells.filter { $0.style.background == theme.land || $0.style.foreground == theme.land }.count
        }
        #expect(landCells(geography, germany) > 50, "Germany's square of the world is land")
        #expect(landCells(OverviewGeography(land: [Self.square(-71, 43, 4)]), germany) == 0, "no world: water only, never Maine")
        #expect(landCells(geography, maine) > 50, "Maine's own outline under Maine")
    }
}

/// The world's outline names a few of its cities, never so many that the outline is lost, and
/// never under Maine's own outline.
@Suite struct OverviewCityTests {
    static func city(_ name: String, _ longitude: Double, _ latitude: Double) -> GeoFeature {
        GeoFeature(geometry: .points([GeoPoint(longitude: longitude, latitude: latitude)]), properties: [("name", .string(name))])
    }

    let geography = OverviewGeography(land: [OverviewRegionTests.square(-71, 43, 4)], world: [OverviewRegionTests.square(5, 47, 10)],
                                      cities: [city("Berlin", 13.4, 52.5), city("Potsdam", 13.1, 52.4), city("Munich", 11.6, 48.1),
                                               city("Bangor", -68.8, 44.8)])

    func frame(_ extent: GeoExtent) -> Frame {
        var frame = Frame(width: 50, height: 18)
        OverviewMap(geography: geography, webMapExtent: extent, areas: [], selected: nil)
            .draw(into: &frame, rect: frame.bounds, title: "t", glyphs: .unicode, colors: true)
        return frame
    }

    @Test func citiesAreNamedOverTheWorldWithoutCrowding() {
        let germany = frame(GeoExtent(xmin: 5.9, ymin: 47.3, xmax: 15.0, ymax: 55.1)).text
        #expect(germany.contains("•Berlin") && germany.contains("•Munich"))
        #expect(!germany.contains("Potsdam"), "too close to Berlin: left out")
        #expect(!frame(GeoExtent(xmin: -71.3, ymin: 42.2, xmax: -66.9, ymax: 47.5)).text.contains("Bangor"),
                "Maine's outline has no world city names")
    }
}
