import ArcGISPortal
import ArgumentParser
import Foundation
import MapbookCore
import OfflineLibrary
import ArcGISModel
import Geometry
import MapbookServices

/// `mapbook areas`: the web map's preplanned map areas.
struct AreasCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "areas",
        abstract: "List the web map's preplanned map areas: title, status, packages and size.")

    @OptionGroup var options: PortalOptions
    @Option(parsing: .unconditional, help: ArgumentHelp("List the areas nearest to this point (or a place on this device, by name) first, with their distance.",
                               valueName: "LON,LAT|PLACE")) var near: String?
    @OptionGroup var dataDirectory: DataDirectoryOption

    func validate() throws {
        if let near, near.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--near needs a place or LON,LAT.") }
    }

    func run() async throws {
        let client = options.client()
        let point: GeoPoint?
        do {
            let library = OfflineLibrary(root: dataDirectory.root, portalKey: options.selection.portalKey, webMap: options.webMapID)
            point = try near.map { try Coordinates.near($0, library: library) }
        } catch {
            throw Output.fail(error, json: options.json)
        }
        let webMapItem: PortalItem
        let areas: [MapArea]
        let source: PortalClient
        do {
            let id = options.webMapID
            (webMapItem, areas, source) = try await Mirror.preferringPortal(client, mirror: options.selection.fleetMirror) { client in
                async let item = client.webMapItem(id)
                async let list = client.mapAreas(of: id)
                return (try await item, Self.nearestFirst(try await list, to: point), client)
            }
        } catch {
            throw Output.fail(error, json: options.json)
        }
        if options.json {
            try Output.json(Self.report(portal: client.portalURL, webMap: webMapItem, areas: areas, near: point,
                                        mirror: source.portalURL == client.portalURL ? nil : source.portalURL))
        } else {
            // Listed by the fleet mirror, the portal not answering: said so, not "on the portal".
            let from = source.portalURL == client.portalURL ? client.host : "the mirror at \(options.selection.fleetMirror?.host ?? source.host) (\(client.host) not answering)"
            print(webMap: webMapItem, areas: areas, point: point, from: from)
        }
    }

    private func print(webMap: PortalItem, areas: [MapArea], point: GeoPoint?, from: String) {
        Output.line("\(Output.cell(webMap.title, width: 80)) (\(webMap.id)) on \(from) — "
                    + "\(areas.count) map area\(areas.count == 1 ? "" : "s")")
        guard !areas.isEmpty else {
            Output.line("This web map has no preplanned map areas.")
            return
        }
        Output.line()
        let rows = areas.map { area in
            [Output.cell(area.item.title, width: 32), area.unavailableReason == nil ? Output.cell(area.status.label, width: 16) : "unavailable",
             String(area.packages.count),
             area.packages.isEmpty ? "–" : Format.bytes(area.size),
             area.item.modified.map { Format.date($0) } ?? "–", area.item.id.rawValue]
                + (point.map { [area.distance(from: $0).map(Format.distance) ?? "–"] } ?? [])
        }
        let header = ["TITLE", "STATUS", "PACKAGES", "SIZE", "MODIFIED", "ID"] + (point == nil ? [] : ["DISTANCE"])
        for line in Output.table(header, rows, rightAligned: point == nil ? [2, 3] : [2, 3, 6]) {
            Output.line("  " + line)
        }
        for area in areas {
            if let reason = area.unavailableReason { Output.line("\(Output.cell(area.item.title)) is unavailable: \(reason)") }
        }
    }

    /// The areas nearest to `point` first (a stable sort), or as they are without one.
    static func nearestFirst(_ areas: [MapArea], to point: GeoPoint?) -> [MapArea] {
        guard let point else { return areas }
        return areas.enumerated().sorted { a, b in
            let da = a.element.distance(from: point) ?? .infinity, db = b.element.distance(from: point) ?? .infinity
            return da != db ? da < db : a.offset < b.offset
        }.map(\.element)
    }

    /// The JSON of `mapbook areas --json` (see docs/cli.md).
    static func report(portal: URL, webMap: PortalItem, areas: [MapArea], near: GeoPoint? = nil, mirror: URL? = nil) -> JSONValue {
        .object([
            "portal": .string(portal.absoluteString),
            // The fleet mirror the list came from, the portal not answering; null from the portal.
            "listedBy": mirror.map { .string($0.absoluteString) } ?? .null,
            "webMap": .object(["id": .string(webMap.id.rawValue), "title": .text(webMap.title)]),
            "mapAreas": .array(areas.map { area in
                var fields: [String: JSONValue] = [
                    "id": .string(area.item.id.rawValue),
                    "title": .text(area.item.title),
                    "snippet": .text(area.item.snippet, width: 2048),
                    "status": .text(area.status.name, width: 32),
                    "downloadable": .bool(area.isDownloadable),
                    "unavailable": .text(area.unavailableReason),
                    "size": .count(area.size),
                    "packageCount": .count(Int64(area.packages.count)),
                    "created": .date(area.item.created),
                    "modified": .date(area.item.modified),
                    "extent": .extent(area.extent),
                    "packages": .array(area.packages.map { package in
                        .object([
                            "id": .string(package.item.id.rawValue),
                            "title": .text(package.item.title),
                            "type": .text(package.item.type, width: 128),
                            "size": .count(package.size),
                            "modified": .date(package.item.modified),
                        ])
                    }),
                ]
                // With --near, each area's distance in metres (0 when the point is inside it).
                if let near { fields["distance"] = area.distance(from: near).map { .number($0.rounded()) } ?? .null }
                return .object(fields)
            }),
        ])
    }
}
