import ArgumentParser
import Foundation
import MapbookCore
import ArcGISModel
import Geometry
import UserFiles
import MapbookServices

/// `mapbook route`: directions between places from the portal's route service.
struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Directions from one place to another (through --via places) from the portal's route service.",
        discussion: """
            Each place is LON,LAT or a name, found with the portal's geocoder (or, when it cannot be asked, among the \
            names on this device). The route service is the one the portal names in portals/self (helperServices.route); \
            ArcGIS Online's needs a sign-in. When no route can be had, the straight-line distance is said.
            """)

    @Argument(help: ArgumentHelp("Where to start: LON,LAT or a place's name.", valueName: "FROM")) var from: String
    @Argument(help: ArgumentHelp("Where to go: LON,LAT or a place's name.", valueName: "TO")) var to: String
    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("A place to pass on the way, in order (repeatable).", valueName: "PLACE")) var via: [String] = []
    @Option(help: ArgumentHelp("A travel mode the portal offers, by name (\"Driving Distance\").", valueName: "NAME")) var mode: String?
    @Option(help: "Units for lengths: km or mi (default: as the units setting says, else the locale's).") var units: String?
    @OptionGroup var library: LibraryOptions
    @Flag(name: .long, help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

    func validate() throws {
        if let units, RouteUnits(rawValue: units) == nil { throw ValidationError("--units must be km or mi.") }
        for place in [from, to] + via where place.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("A place must be LON,LAT or a name, not empty.")
        }
    }

    func run() async throws {
        let client = library.selection.client()
        let finder = PlaceFinder(client: { client }, library: library.library)
        let queries = ([from] + via + [to]).map(StopQuery.init(typed:))
        let stops: [RouteStop]
        switch await RoutePlanner.locate(queries, finder: finder) {
        case .success(let located):
            if let problem = located.problem, !json {
                Output.standardError("mapbook: \(problem.sentence) Looking for places among the names on this device.")
            }
            stops = located.stops
        case .failure(let unknown): throw Output.fail(unknown, json: json)
        }
        let units = units.flatMap(RouteUnits.init(rawValue:)) ?? RouteUnits(Settings.load().0.units)
        let answer = await RoutePlanner(client: { client }).route(through: stops, units: units, mode: mode)
        let route: Route
        switch answer {
        case .success(let found): route = found
        case .failure(var failure):
            failure.units = units.distanceUnits
            throw Output.fail(failure, json: json)
        }
        if json { try Output.json(Self.json(route)) } else { Self.print(route) }
    }

    /// The JSON of `mapbook route --json` (docs/cli.md).
    static func json(_ route: Route) -> JSONValue {
        .object([
            "stops": .array(route.stops.map { .object(["name": .text($0.name), "longitude": .number($0.point.longitude), "latitude": .number($0.point.latitude)]) }),
            "units": .string(route.units.rawValue),
            "mode": .text(route.modeName),
            "length": .number(route.length),
            "minutes": .number(route.minutes),
            "start": .date(route.start),
            "arrival": .date(route.arrival),
            "extent": .extent(route.extent),
            "path": .array(route.path.map { .array([.number($0.longitude), .number($0.latitude)]) }),
            "maneuvers": .array(route.maneuvers.map { step in
                .object(["kind": .string(step.kind.rawValue), "text": .text(step.text), "length": .number(step.length),
                         "minutes": .number(step.minutes), "arrival": .date(step.arrival), "points": .number(Double(step.path.count))])
            }),
        ])
    }

    static func print(_ route: Route) {
        let names = route.stops.map { Output.cell($0.name, width: 60) }.joined(separator: " → ")
        Output.line("\(names): \(route.totals), arriving \(Format.date(route.arrival, time: true))"
                    + (route.modeName.map { " (\(Output.cell($0, width: 40)))" } ?? ""))
        let width = String(route.maneuvers.count).count
        for (i, step) in route.maneuvers.enumerated() {
            let number = String(i + 1).leftPadded(to: width)
            let measure = route.measure(of: step).map { "  " + $0 } ?? ""
            Output.line("  \(number) \(step.kind.glyph) \(Output.cell(step.text, width: 100))\(measure)")
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(width - count, 0)) + self }
}
