import ArcGISModel
import AppModel
import Foundation
import MapRender
import MapbookCore
import TerminalCanvas
import Testing
@testable import TerminalRender
@testable import TerminalUI
import Geometry

/// The directions panel at the map's right and the route laid over the map, drawn on their own.
@Suite struct DirectionsPanelTests {
    let options = RenderOptions(glyphs: .unicode, theme: .color, timeZone: TimeZone(identifier: "UTC")!)
    static let portland = RouteStop(name: "Portland, ME, USA", point: GeoPoint(longitude: -70.2553, latitude: 43.6615))
    static let bangor = RouteStop(name: "Bangor, ME, USA", point: GeoPoint(longitude: -68.7778, latitude: 44.8012))

    static func route() -> Route {
        let a = portland.point, b = bangor.point, c = GeoPoint(longitude: -69.8, latitude: 44.1)
        return Route(stops: [portland, bangor], units: .kilometers, path: [a, c, b], length: 208.4, minutes: 121, extent: nil,
                     maneuvers: [
                        Maneuver(kind: .depart, text: "Start at Portland, ME, USA", length: 0, minutes: 0, arrival: nil, path: [a]),
                        Maneuver(kind: .rampRight, text: "Take I-295 N toward Brunswick and on to the far north of the state", length: 8.6, minutes: 6,
                                 arrival: nil, path: [a, c]),
                        Maneuver(kind: .straight, text: "Continue on I-95 N", length: 194, minutes: 111, arrival: nil, path: [c, b]),
                        Maneuver(kind: .arrive, text: "Finish at Bangor, ME, USA", length: 0, minutes: 0, arrival: nil, path: [b]),
                     ],
                     start: Date(timeIntervalSince1970: 1_795_000_000))  // 2026-11-18 11:06:40 UTC
    }

    func directions(_ outcome: Directions.Outcome, step: Int? = nil, more: Int = 0) -> Directions {
        var directions = Directions()
        for request in 0...more {
            directions.add(Directions.Result(request: RequestID(rawValue: request), stops: [.place(Self.portland), .place(Self.bangor)], outcome: outcome, step: step))
        }
        return directions
    }

    func drawn(_ directions: Directions, width: Int = 120, height: Int = 24, options: RenderOptions? = nil) -> Frame {
        var frame = Frame(width: width, height: height)
        DirectionsPanel.draw(directions, in: Rect(x: 0, y: 0, width: width, height: height), into: &frame, options: options ?? self.options)
        return frame
    }

    @Test func thePanelListsTheTotalsTheArrivalAndEveryStepWithItsGlyphAndMeasure() {
        let frame = drawn(directions(.found(Self.route())))
        let width = ScreenLayout.directionsPanelWidth(mapWidth: 120)
        #expect(width == 48)
        let left = 120 - width - 1
        func line(_ y: Int) -> String { String(frame.row(at: y).dropFirst(left)) }
        #expect(line(0).hasPrefix("╭─ Directions ─") && line(0).hasSuffix("╮"))
        #expect(line(1).contains("Portland, ME, USA → Bangor, ME, USA"))
        #expect(line(2).contains("208 km · 2 h 01 min"))
        #expect(line(3).contains("Arrive 13:07 "), "in the time zone given")
        #expect(line(5).contains("Whole route") && line(5).hasSuffix("208 km · 2 h 01 min │"))
        #expect(line(6).contains("1 ◉ Start at Portland, ME, USA"))
        #expect(line(7).contains("2 ↗ Take I-295 N toward") && line(7).contains("…") && line(7).hasSuffix("8.6 km · 6 min │"))
        #expect(line(8).contains("3 ↑ Continue on I-95 N") && line(8).hasSuffix("194 km · 1 h 51 min │"))
        #expect(line(9).contains("4 ◆ Finish at Bangor, ME, USA"))
        #expect(line(23).hasSuffix(" Esc close ─╯"))
        // The whole route's row is the chosen one: reversed.
        #expect(frame[left + 3, 5].style.reverse && !frame[left + 3, 6].style.reverse)
        #expect(frame[left - 1, 5].character == " " && frame.row(at: 5).prefix(left).allSatisfy { $0 == " " }, "nothing drawn left of the panel")
    }

    @Test func aChosenStepIsReversedAndItsWholeTextShownAtTheFoot() {
        let frame = drawn(directions(.found(Self.route()), step: 1, more: 2))
        let left = 120 - 48 - 1
        #expect(frame.row(at: 0).contains("Directions · 3 of 3"))
        #expect(frame[left + 3, 7].style.reverse && !frame[left + 3, 5].style.reverse)
        let text = (18...22).map { frame.row(at: $0) }.joined(separator: " ")
        #expect(text.contains("Take I-295 N toward Brunswick and on to the") && text.contains("far north of the state"))
        #expect(frame.row(at: 23).contains("[ ] · Esc close"))
    }

    @Test func askingAndFailingAreOneSentenceAndASCIIHasNoArrows() {
        #expect(drawn(directions(.asking)).row(at: 2).contains("Asking the route service…"))
        let sentence = "The route service found no way between the stops. In a straight line it is 174 km."
        let failed = drawn(directions(.failed(sentence)), width: 80)
        let text = (2...6).map { failed.row(at: $0) }.joined(separator: " ")
        #expect(text.contains("The route service found no way") && text.contains("174 km."))
        #expect(!text.contains("Whole route"))
        #expect(failed.row(at: 23).contains(" r again · Esc close "), "failed directions can be asked again")
        let ascii = drawn(directions(.found(Self.route())), width: 80, options: RenderOptions(glyphs: .ascii, theme: .monochrome,
                                                                                                timeZone: TimeZone(identifier: "UTC")!))
        let rows = (0..<24).map { ascii.row(at: $0) }.joined()
        #expect(rows.contains("2 Take I-295") && !rows.contains("↗") && !rows.contains("◉"))
    }

    @Test func theRouteIsDrawnBoldWithItsStartAndEndMarkedAndTheStepOverIt() {
        let viewport = MapViewport(fitting: GeoExtent(xmin: -70.6, ymin: 43.4, xmax: -68.4, ymax: 45.0), columns: 60, rows: 20)
        let route = Self.route()
        var frame = Frame(width: 60, height: 20)
        let theme = MapTheme()
        MapOverlays(route: MapOverlays.RouteLine(path: route.path, step: route.maneuvers[2].path, stops: route.stops.map { ($0.name, $0.point) }))
            .draw(over: nil, viewport: viewport, into: &frame, rect: Rect(x: 0, y: 0, width: 60, height: 20), theme: theme, glyphs: .unicode, colors: true)
        let cells = (0..<20).flatMap { y in (0..<60).map { frame[$0, y] } }
        #expect(cells.contains { $0.character == "◉" && $0.style.foreground == theme.routeStart })
        #expect(cells.contains { $0.character == "◆" && $0.style.foreground == theme.routeEnd })
        #expect(cells.filter { $0.style.foreground == theme.route }.count > 5, "the line before the step")
        #expect(cells.filter { $0.style.foreground == theme.routeStep }.count > 5, "the step over it")
        let text = (0..<20).map { frame.row(at: $0) }.joined()
        #expect(text.contains("Portland, ME, USA") && text.contains("Bangor, ME, USA"))
        // Three dots across: a bold line fills more of each braille cell than the two-dot outline.
        let heavy = cells.filter { $0.style.foreground == theme.route && ($0.character.unicodeScalars.first?.value ?? 0) >= 0x2800 }
            .map { (($0.character.unicodeScalars.first?.value ?? 0x2800) - 0x2800).nonzeroBitCount }
        #expect(!heavy.isEmpty && Double(heavy.reduce(0, +)) / Double(heavy.count) >= 3)
    }
}
