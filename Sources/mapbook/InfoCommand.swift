import ArcGISPortal
import ArgumentParser
import Foundation
import MapbookCore

/// `mapbook info ID`: one item's details.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show one portal item: a web map, a map area or a package.")

    @Argument(help: ArgumentHelp("The item's id (32 hexadecimal characters).", valueName: "ID"))
    var id: String

    @OptionGroup var options: PortalOptions

    func validate() throws {
        guard ItemID(id) != nil else { throw ValidationError("ID must be an item id: 32 hexadecimal characters.") }
    }

    func run() async throws {
        let client = options.client()
        let item: PortalItem
        do {
            item = try await client.item(ItemID(id)!)
        } catch {
            throw Output.fail(error, json: options.json)
        }
        let fields = ItemJSON(item)
        if options.json {
            try Output.json(fields)
            return
        }
        var rows: [(String, String)] = [("Title", fields.title), ("Type", fields.type), ("ID", fields.id)]
        if let owner = fields.owner { rows.append(("Owner", owner)) }
        if let snippet = fields.snippet { rows.append(("Snippet", snippet)) }
        if let created = item.created { rows.append(("Created", Format.date(created))) }
        if let modified = item.modified { rows.append(("Modified", Format.date(modified))) }
        if let size = item.size { rows.append(("Size", Format.bytes(size))) }
        if let extent = item.extent {
            rows.append(("Extent", String(format: "%.4f, %.4f — %.4f, %.4f (lon, lat)",
                                          extent.xmin, extent.ymin, extent.xmax, extent.ymax)))
        }
        if let status = item.properties?["status"]?.string { rows.append(("Status", Output.cell(status, width: 32))) }
        if let access = fields.access { rows.append(("Access", access)) }
        if !fields.typeKeywords.isEmpty { rows.append(("Keywords", fields.typeKeywords.joined(separator: ", "))) }
        if !fields.tags.isEmpty { rows.append(("Tags", fields.tags.joined(separator: ", "))) }
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows {
            Output.line(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
        }
        if let description = fields.description, !description.isEmpty {
            Output.line()
            Output.line(description)
        }
    }
}
