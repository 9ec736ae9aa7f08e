import ArcGISPortal
import ArgumentParser
import Foundation
import MapbookCore
import ArcGISModel

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
        if options.json {
            try Output.json(JSONValue.item(item))
            return
        }
        var rows: [(String, String)] = [("Title", Output.cell(item.title, width: 200)),
                                        ("Type", Output.cell(item.type)), ("ID", item.id.rawValue)]
        if let owner = item.owner { rows.append(("Owner", Output.cell(owner))) }
        if let snippet = item.snippet { rows.append(("Snippet", Output.cell(snippet, width: 400))) }
        if let created = item.created { rows.append(("Created", Format.date(created))) }
        if let modified = item.modified { rows.append(("Modified", Format.date(modified))) }
        if let size = item.size { rows.append(("Size", Format.bytes(size))) }
        if let extent = item.extent {
            rows.append(("Extent", extent.summary))
        }
        if let status = item.properties?["status"]?.string { rows.append(("Status", Output.cell(status, width: 32))) }
        if let access = item.access { rows.append(("Access", Output.cell(access))) }
        if !item.typeKeywords.isEmpty { rows.append(("Keywords", Output.cell(item.typeKeywords.joined(separator: ", "), width: 400))) }
        if !item.tags.isEmpty { rows.append(("Tags", Output.cell(item.tags.joined(separator: ", "), width: 400))) }
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows {
            Output.line(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
        }
        let description = TerminalText.sanitizedParagraphs(HTMLText.plainText(item.description ?? ""))
        if !description.isEmpty {
            Output.line()
            Output.line(description)
        }
    }
}
