import ArgumentParser
import Foundation
import MapRender
import MapSources
import MapbookCore
import Geometry

/// `mapbook identify`: what `i` in the map view shows for a point, as text or JSON.
struct IdentifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Show the features at a point: operational layers' popups, then the basemap's vector tile features.",
        discussion: """
            Looks within one terminal cell of the point in a 120×40 view at --zoom, as `i` does in the map view: the web \
            map's operational layers (from their services, or with --area from the area's geodatabases and the copies kept with the download), then \
            the vector basemap's features (labels and points first). With --area or --file it needs no network.
            """)

    @OptionGroup var source: MapSourceOptions
    @Option(parsing: .unconditional, help: ArgumentHelp("The point to identify: longitude, latitude (such as -70.26,43.66).", valueName: "LON,LAT"))
    var at: String
    @Option(help: ArgumentHelp("Zoom level of the view (0–22); the tolerance is one cell at it.", valueName: "Z")) var zoom = 10.0
    @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false
    @Option(help: ArgumentHelp("With --json, the point also in this coordinate system (\"at\"'s x and y).", valueName: "EPSG:CODE"))
    var crs: String?

    func validate() throws {
        guard GeoPoint(parsing: at) != nil else { throw ValidationError(GeoPoint.notAPoint(at, what: "--at")) }
        guard MapViewport.zoomRange.contains(zoom) else { throw ValidationError("--zoom must be between 0 and 22.") }
    }

    func run() async throws {
        let point = GeoPoint(parsing: at)!
        let hits: [IdentifyHit], problems: [String]
        var projected: (system: NamedCoordinateSystem, x: Double, y: Double)?
        do {
            if let crs {
                let output = try CRSOption.parse(crs)
                let (x, y) = output.transform(x: point.longitude, y: point.latitude)
                guard x.isFinite, y.isFinite else { throw CRSOption.Problem("--at lies outside what \(crs) can hold.") }
                projected = (output.system, x, y)
            }
            let (stack, _) = try await source.openStack()
            // The layers the map hides are not identified, as in the browser's first view.
            let request = MapRequest(viewport: MapViewport(center: MercatorPoint(point), zoom: zoom), columns: 120, rows: 40,
                                     hiddenLayers: Set(stack.initiallyHidden))
            // Drawn first: online layers fetch the features of the view as they do on screen.
            let image = await stack.render(request)
            hits = await stack.identify(at: point, request: request)
            problems = image.problems
        } catch {
            throw Output.fail(error, json: json)
        }
        if json {
            try Output.json(JSONValue.object([
                "at": .object(["longitude": .number(point.longitude), "latitude": .number(point.latitude)].merging(projected.map { p in
                    ["crs": .string("\(p.system.authority):\(p.system.code)"), "x": .number(p.x), "y": .number(p.y)]
                } ?? [:]) { a, _ in a }),
                "zoom": .number(zoom),
                "features": .array(hits.map { hit in
                    .object([
                        "layer": .text(hit.card.layer, width: 100), "title": .text(hit.card.title, width: 120),
                        "fields": .array(hit.card.rows.map { .object(["label": .text($0.label, width: 60), "value": .text($0.value)]) }),
                        "text": .text(hit.card.text, width: 4000),
                    ])
                }),
                "problems": .array(problems.map { .text($0) }),
            ]))
            return
        }
        problems.forEach(Output.problem)
        guard !hits.isEmpty else {
            Output.line(String(format: "Nothing at %.5f,%.5f within a cell at zoom %g.", point.longitude, point.latitude, zoom))
            return
        }
        for (index, hit) in hits.enumerated() {
            if index > 0 { Output.line() }
            Output.line("\(Output.cell(hit.card.title, width: 120))  (\(Output.cell(hit.card.layer, width: 100)))")
            let width = min(hit.card.rows.map { $0.label.count }.max() ?? 0, 30)
            for row in hit.card.rows {
                let label = Output.cell(row.label, width: 30)
                Output.line("  " + label + String(repeating: " ", count: max(width - label.count, 0)) + "  " + Output.cell(row.value, width: 500))
            }
            if let text = hit.card.text {
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) { Output.line("  " + Output.cell(String(line), width: 500)) }
            }
        }
    }
}
