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
            async let item = client.item(options.webMapID)
            async let list = client.mapAreas(of: options.webMapID)
            webMapItem = try await item
            guard webMapItem.type == "Web Map" else {
                throw PortalError(.wrongItemType(expected: "Web Map", actual: webMapItem.type),
                                  host: client.host, itemID: webMapItem.id)
            }
            areas = try await list
        } catch {
            throw Output.fail(error, json: options.json)
        }
        let report = AreasReport(portal: client.portalURL.absoluteString, webMap: webMapItem, areas: areas)
        if options.json { try Output.json(report) } else { print(report) }
    }

    private func print(_ report: AreasReport) {
        let count = report.mapAreas.count
        Output.line("\(report.webMap.title) (\(report.webMap.id)) on \(options.portalURL!.host ?? "") — "
                    + "\(count) map area\(count == 1 ? "" : "s")")
        guard count > 0 else {
            Output.line("This web map has no preplanned map areas.")
            return
        }
        Output.line()
        let rows = report.mapAreas.map { area in
            [Output.cell(area.title, width: 32), area.status, String(area.packageCount),
             area.packageCount == 0 ? "–" : Format.bytes(area.size),
             area.modifiedDate.map(Format.date) ?? "–", area.id]
        }
        for line in Output.table(["TITLE", "STATUS", "PACKAGES", "SIZE", "MODIFIED", "ID"], rows, rightAligned: [2, 3]) {
            Output.line("  " + line)
        }
    }
}

/// The JSON of `mapbook areas --json` (see docs/cli.md).
struct AreasReport: Encodable {
    struct WebMapRef: Encodable {
        var id: String
        var title: String
    }

    struct Area: Encodable {
        var id: String
        var title: String
        var snippet: String?
        var status: String
        var downloadable: Bool
        var size: Int64
        var packageCount: Int
        var created: String?
        var modified: String?
        var extent: GeoExtent?
        var packages: [Package]
        var modifiedDate: Date?

        enum CodingKeys: String, CodingKey {
            case id, title, snippet, status, downloadable, size, packageCount, created, modified, extent, packages
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id); try c.encode(title, forKey: .title); try c.encode(snippet, forKey: .snippet)
            try c.encode(status, forKey: .status); try c.encode(downloadable, forKey: .downloadable)
            try c.encode(size, forKey: .size); try c.encode(packageCount, forKey: .packageCount)
            try c.encode(created, forKey: .created); try c.encode(modified, forKey: .modified)
            try c.encode(extent, forKey: .extent); try c.encode(packages, forKey: .packages)
        }
    }

    struct Package: Encodable {
        var id: String
        var title: String
        var type: String
        var size: Int64?
        var modified: String?

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id); try c.encode(title, forKey: .title); try c.encode(type, forKey: .type)
            try c.encode(size, forKey: .size); try c.encode(modified, forKey: .modified)
        }

        enum CodingKeys: String, CodingKey { case id, title, type, size, modified }
    }

    var portal: String
    var webMap: WebMapRef
    var mapAreas: [Area]

    init(portal: String, webMap: PortalItem, areas: [MapArea]) {
        self.portal = portal
        self.webMap = WebMapRef(id: webMap.id.rawValue, title: Output.cell(webMap.title, width: 512))
        mapAreas = areas.map { area in
            Area(id: area.item.id.rawValue, title: Output.cell(area.item.title, width: 512),
                 snippet: area.item.snippet.map { Output.cell($0, width: 2048) },
                 status: Output.cell(area.status.name, width: 32), downloadable: area.status.isDownloadable,
                 size: area.size, packageCount: area.packages.count,
                 created: area.item.created.map(Format.timestamp), modified: area.item.modified.map(Format.timestamp),
                 extent: area.extent,
                 packages: area.packages.map { package in
                     Package(id: package.item.id.rawValue, title: Output.cell(package.item.title, width: 512),
                             type: Output.cell(package.item.type, width: 128), size: package.size,
                             modified: package.item.modified.map(Format.timestamp))
                 },
                 modifiedDate: area.item.modified)
        }
    }
}
