import ArcGISPortal
import ArgumentParser
import Foundation
import MapbookCore

/// `mapbook areas`: the web map's preplanned map areas.
struct AreasCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "areas",
        abstract: "List the web map's preplanned map areas: title, status, packages and size.")

    @OptionGroup var options: PortalOptions

    func run() async throws {
        let client = options.client()
        let webMapItem: PortalItem
        let areas: [MapArea]
        do {
            async let item = client.webMapItem(options.webMapID)
            async let list = client.mapAreas(of: options.webMapID)
            webMapItem = try await item
            areas = try await list
        } catch {
            throw Output.fail(error, json: options.json)
        }
        if options.json {
            try Output.json(Self.report(portal: client.portalURL, webMap: webMapItem, areas: areas))
        } else {
            print(webMap: webMapItem, areas: areas)
        }
    }

    private func print(webMap: PortalItem, areas: [MapArea]) {
        Output.line("\(Output.cell(webMap.title, width: 80)) (\(webMap.id)) on \(options.portalURL!.host ?? "") — "
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
             area.item.modified.map(Format.date) ?? "–", area.item.id.rawValue]
        }
        for line in Output.table(["TITLE", "STATUS", "PACKAGES", "SIZE", "MODIFIED", "ID"], rows, rightAligned: [2, 3]) {
            Output.line("  " + line)
        }
        for area in areas {
            if let reason = area.unavailableReason { Output.line("\(Output.cell(area.item.title)) is unavailable: \(reason)") }
        }
    }

    /// The JSON of `mapbook areas --json` (see docs/cli.md).
    static func report(portal: URL, webMap: PortalItem, areas: [MapArea]) -> JSONValue {
        .object([
            "portal": .string(portal.absoluteString),
            "webMap": .object(["id": .string(webMap.id.rawValue), "title": .text(webMap.title)]),
            "mapAreas": .array(areas.map { area in
                .object([
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
                ])
            }),
        ])
    }
}
