import ArcGISPortal
import ArgumentParser
import Foundation
import MapbookCore
import OfflineLibrary
import ArcGISModel
import Geometry
import Places
import MapbookServices

/// `mapbook search`: places by name from the portal's geocoder, each with the web map's areas that
/// hold it.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find places by name or address with the portal's geocoder, and the map areas that hold them.",
        discussion: """
            The geocoder is the one the portal names in portals/self (helperServices.geocode). With --offline, or when the \
            portal cannot be reached, the names inside the downloaded areas' vector packages and the bundled places answer.
            """)

    @Argument(help: "What to look for: a place, an address.") var text: String
    @OptionGroup var library: LibraryOptions
    @Option(parsing: .unconditional, help: ArgumentHelp("Prefer places near this point, or near a place on this device by name.", valueName: "LON,LAT|PLACE"))
    var near: String?
    @Option(help: "How many places at most (1–50).") var limit = 10
    @Flag(name: .long, help: "Search only the names on this device (downloaded packages and the bundled places).") var offline = false
    @Flag(name: .long, help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

    func validate() throws {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw ValidationError("Give a place or an address to look for.") }
        if let near, near.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--near needs a place or LON,LAT.") }
        guard (1...50).contains(limit) else { throw ValidationError("--limit must be between 1 and 50.") }
    }

    func run() async throws {
        let client = library.selection.client()
        let point: GeoPoint?
        do { point = try near.map { try Coordinates.near($0, library: library.library) } } catch { throw Output.fail(error, json: json) }
        // One rule with the browser's search (PlaceFinder): the geocoder, else the names on this device.
        let answer = await PlaceFinder(client: { client }, library: library.library)
            .places(for: text, near: point, limit: limit, online: !offline)
        if let problem = answer.problem, !json {
            Output.standardError("mapbook: \(problem.sentence) Searching the names on this device.")
        }
        let fromDevice = answer.source == .device
        // A place from the device has for type where it was found: "a package on this device" or
        // "the world gazetteer" (docs/cli.md).
        let found = answer.value
        let areas = await AreaLookup.load(client: fromDevice ? nil : client, library: library.library)
        if json {
            try Output.json(JSONValue.object([
                "query": .text(text, width: 200),
                "source": .string(fromDevice ? "device" : "geocoder"),
                "geocoderProblem": .text(answer.problem?.sentence, width: 300),
                "results": .array(found.map { place in
                    .object(["label": .text(place.label), "longitude": .number(place.location.longitude),
                             "latitude": .number(place.location.latitude), "score": .number(place.score), "type": .text(place.type, width: 64),
                             "extent": .extent(place.extent), "areas": areas.json(containing: place.location)])
                }),
            ]))
            return
        }
        guard !found.isEmpty else {
            Output.line("No place found for “\(Output.cell(text, width: 80))”\(fromDevice ? " on this device" : "").")
            return
        }
        for place in found {
            let position = place.location.written(places: 4)
            Output.line("\(Output.cell(place.label, width: 80))  \(position)\(place.type.map { "  \(Output.cell($0, width: 32))" } ?? "")"
                        + areas.sentence(containing: place.location))
        }
    }
}

/// `mapbook reverse`: the address at a point, and the areas that hold it.
struct ReverseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "The address at a point, from the portal's geocoder, and the map areas that hold the point.")

    @Argument(help: ArgumentHelp("The point: longitude, latitude, such as -68.2,44.35.", valueName: "LON,LAT")) var point: String
    @OptionGroup var library: LibraryOptions
    @Flag(name: .long, help: "Only the names on this device: the nearest, with its distance and direction.") var offline = false
    @Flag(name: .long, help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

    func validate() throws {
        guard GeoPoint(parsing: point) != nil else { throw ValidationError(GeoPoint.notAPoint(point, what: "The point")) }
    }

    func run() async throws {
        let location = GeoPoint(parsing: point)!
        let client = library.selection.client()
        // One rule with the browser's `w` (PlaceFinder): the geocoder's address, else the nearest
        // named place on this device.
        let found = await PlaceFinder(client: { client }, library: library.library).describe(location, online: !offline)
        if let problem = found.problem, !json {
            Output.standardError("mapbook: \(problem.sentence) Naming the nearest place on this device.")
        }
        let (address, nearest) = (found.address, found.nearest)
        let areas = await AreaLookup.load(client: offline || found.problem?.network.isCutOff == true ? nil : client, library: library.library)
        if json {
            try Output.json(JSONValue.object([
                "longitude": .number(location.longitude), "latitude": .number(location.latitude),
                "address": address.map { address in
                    .object(["label": .text(address.label), "city": .text(address.city), "region": .text(address.region),
                             "longitude": address.location.map { .number($0.longitude) } ?? .null,
                             "latitude": address.location.map { .number($0.latitude) } ?? .null])
                } ?? .null,
                "nearest": nearest.map { near in
                    .object(["name": .text(near.place.name), "region": .text(near.place.region), "source": .string(near.place.source.rawValue),
                             "distance": .number(near.meters.rounded()), "direction": .string(near.direction),
                             "longitude": .number(near.place.point.longitude), "latitude": .number(near.place.point.latitude)])
                } ?? .null,
                "areas": areas.json(containing: location),
                "geocoderProblem": .text(found.problem?.sentence, width: 300),
            ]))
            return
        }
        let nearestLine = nearest.map { Output.cell(Gazetteer.sentence($0), width: 160) }
        Output.line((address.map { Output.cell($0.label, width: 120) } ?? nearestLine ?? "No address is known here.")
                    + areas.sentence(containing: location))
    }
}

/// The web map's areas (from the portal, else the library's copy) and which are on this device:
/// what a place found lies in.
struct AreaLookup {
    var areas: [MapArea]
    var downloaded: Set<ItemID>

    /// `client` nil: the library's copy only (offline).
    static func load(client: PortalClient?, library: OfflineLibrary) async -> AreaLookup {
        let records = library.downloadRecords()
        var areas: [MapArea]?
        if let client { areas = try? await client.mapAreas(of: library.webMapID) }
        areas = areas ?? (try? library.loadCatalog(records: records))?.areas
        return AreaLookup(areas: areas ?? [], downloaded: Set(records.keys))
    }

    func containing(_ point: GeoPoint) -> [MapArea] {
        areas.filter { $0.extent?.contains(point) == true }
    }

    func json(containing point: GeoPoint) -> JSONValue {
        .array(containing(point).map { area in
            .object(["id": .string(area.item.id.rawValue), "title": .text(area.item.title), "downloaded": .bool(downloaded.contains(area.item.id))])
        })
    }

    /// "  — in Acadia (on this device)", or nothing.
    func sentence(containing point: GeoPoint) -> String {
        let names = containing(point).map { Output.cell($0.item.title) + (downloaded.contains($0.item.id) ? " (on this device)" : "") }
        return names.isEmpty ? "" : "  — in " + names.joined(separator: ", ")
    }
}
