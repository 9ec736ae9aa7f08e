import Foundation
import MapbookCore
import TerminalCanvas
import Testing
import TileFormats
@testable import MapRender
import Geometry

/// A style's line widths and dash patterns, approximated in braille dots, and names laid along
/// the level stretches of lines.
@Suite struct LineStyleTests {
    /// The dots set on a 20×4-cell canvas by one horizontal line through its middle.
    private func dots(_ style: LineStyle) -> [[Bool]] {
        var canvas = MapCanvas(columns: 20, rows: 4)
        var phase = 0.0
        canvas.line(from: (0, 8), to: (39, 8), color: 1, style: style, phase: &phase)
        var frame = Frame(width: 20, height: 4)
        canvas.draw(into: &frame, at: (0, 0), glyphs: .unicode, colors: true, shadeWithoutColor: true)
        return (0..<16).map { y in
            (0..<40).map { x in
                let scalar = frame[x / 2, y / 4].character.unicodeScalars.first!.value
                guard (0x2800...0x28FF).contains(scalar) else { return false }
                let bits: [[UInt32]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]
                return (scalar - 0x2800) & bits[x & 1][y & 3] != 0
            }
        }
    }

    @Test func widthsSpreadAcrossTheLineAndAreCappedAtThreeDots() {
        #expect(LineStyle(width: 1, dasharray: []) == .solid)
        #expect(dots(LineStyle(width: 0.5, dasharray: [])).filter { $0.contains(true) }.count == 1)
        #expect(dots(LineStyle(width: 2, dasharray: [])).filter { $0.contains(true) }.count == 2)
        #expect(dots(LineStyle(width: 3, dasharray: [])).filter { $0.contains(true) }.count == 3)
        #expect(dots(LineStyle(width: 12, dasharray: [])).filter { $0.contains(true) }.count == 3, "a band is still a line")
    }

    @Test func dashesLeaveGapsThatRunOnAcrossSegments() throws {
        let row = try #require(dots(LineStyle(width: 1, dasharray: [4, 2])).first { $0.contains(true) })
        // Four dots on, two off, from the start.
        #expect(row.prefix(12).map { $0 ? "x" : "." }.joined() == "xxxx..xxxx..")
        // A pattern too fine for dots, or without a gap, is solid.
        #expect(LineStyle(width: 1, dasharray: [1, 0]).dashes.isEmpty)
        #expect(LineStyle(width: 1, dasharray: [0.2, 0.2]).dashes.isEmpty)
        // The phase carries on: a second segment starts where the first left the pattern.
        var canvas = MapCanvas(columns: 20, rows: 1)
        var phase = 0.0
        let style = LineStyle(width: 1, dasharray: [4, 2])
        canvas.line(from: (0, 1), to: (3, 1), color: 1, style: style, phase: &phase)
        #expect(phase == 3)
        #expect(style.isOn(at: 3.5) && !style.isOn(at: 4.5) && style.isOn(at: 6.5))
    }

    /// A named level road: its name lies on its row, centred on the road; a steep one keeps its
    /// name beside its middle.
    @Test func aLevelRoadCarriesItsNameAlongIt() throws {
        var builder = MVTLayerBuilder(name: "roads")
        let level = MVTGeometry(points: [MVTPoint(x: 200, y: 2048), MVTPoint(x: 1500, y: 2060), MVTPoint(x: 3900, y: 2040)],
                                partEnds: [3])
        builder.add(type: .lineString, geometry: level, properties: [("name", .string("Harbor Road"))])
        let tile = MapTile(key: TileKey(z: 10, x: 300, y: 370), vector: MVTTile(layers: [builder.layer]))
        let style = MapStyle(try VectorStyle(data: Data(#"""
            {"version":8,"layers":[
              {"id":"roads","type":"line","source":"s","source-layer":"roads","paint":{"line-color":"#555555","line-width":2,
               "line-dasharray":[3,1]}},
              {"id":"names","type":"symbol","source":"s","source-layer":"roads","layout":{"text-field":"{name}"},
               "paint":{"text-color":"#000000"}}]}
            """#.utf8)))
        let span = 2 * WebMercator.originShift / 1024
        let centre = MercatorPoint(x: -WebMercator.originShift + 300.5 * span, y: WebMercator.originShift - 370.5 * span)
        let scene = MapScene(viewport: MapViewport(center: centre, zoom: 11), style: style, tiles: [tile])
        var frame = Frame(width: 60, height: 20)
        let report = MapComposer.draw(scene, into: &frame, rect: frame.bounds)
        #expect(report.labelsPlaced == 1)
        let row = try #require((0..<20).first { frame.row(at: $0).contains("Harbor Road") })
        // The road runs along that row (its dots either side of the name).
        let text = frame.row(at: row)
        let name = try #require(text.range(of: "Harbor Road"))
        #expect(text[..<name.lowerBound].contains { ("\u{2801}"..."\u{28FF}").contains($0) })
        #expect(text[name.upperBound...].contains { ("\u{2801}"..."\u{28FF}").contains($0) })
    }
}
