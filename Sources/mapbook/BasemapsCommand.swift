import ArcGISPortal
import ArgumentParser
import Foundation
import MapbookCore
import OfflineLibrary
import ArcGISModel
import MapbookServices

/// `mapbook basemaps`: the portal's basemap gallery, and which basemap this web map is drawn on.
struct BasemapsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "basemaps",
        abstract: "List the portal's basemaps; --use draws the web map on one of them (remembered on this device).",
        discussion: """
            The gallery is the one the portal names in portals/self (basemapGalleryGroupQuery). `--use web-map` goes \
            back to the web map's own basemap. The browser's B key makes the same choice.
            """)

    @OptionGroup var library: LibraryOptions
    @Flag(name: .long, help: "Print JSON (described in docs/cli.md) instead of text.") var json = false
    @Option(help: ArgumentHelp("Draw the web map on this basemap: a gallery item's id or title, or web-map.", valueName: "BASEMAP"))
    var use: String?

    func run() async throws {
        let client = library.selection.client()
        let library = self.library.library
        let gallery: [BasemapChoice]
        let own: Basemap
        do {
            async let choices = client.basemapGallery()
            async let webMap = client.webMap(library.webMapID)
            (gallery, own) = (try await choices, (try await webMap).basemap)
            if let use { try choose(use, from: gallery, in: library) }
        } catch {
            throw Output.fail(error, json: json)
        }
        let chosen = library.chosenBasemap()
        if json {
            try Output.json(Self.report(portal: client.portalURL, webMap: library.webMapID, own: own, gallery: gallery, chosen: chosen))
        } else {
            print(own: own, gallery: gallery, chosen: chosen)
        }
    }

    private func choose(_ name: String, from gallery: [BasemapChoice], in library: OfflineLibrary) throws {
        if name.lowercased() == "web-map" {
            try library.saveChosenBasemap(nil)
            return
        }
        let wanted = name.trimmingCharacters(in: .whitespaces).lowercased()
        let matches = gallery.filter { $0.item.id.rawValue == wanted || $0.item.title.lowercased() == wanted }
        let found = matches.isEmpty ? gallery.filter { $0.item.title.lowercased().hasPrefix(wanted) } : matches
        guard found.count == 1, let choice = found.first else {
            let names = (found.isEmpty ? gallery : found).map { Output.cell($0.item.title) }.joined(separator: ", ")
            throw NoSuchBasemap(userMessage: found.isEmpty ? "No basemap of the gallery is called \(Output.cell(name)); it has: \(names)."
                                                           : "\(Output.cell(name)) names more than one basemap: \(names).")
        }
        try library.saveChosenBasemap(choice.basemap)
    }

    private func print(own: Basemap, gallery: [BasemapChoice], chosen: Basemap?) {
        let rows = [["*", Output.cell(own.title ?? "Basemap"), "this web map's own, " + own.composition, "–"]]
            + gallery.map { [$0.basemap == chosen ? "*" : "", Output.cell($0.item.title), $0.basemap.composition, $0.item.id.rawValue] }
        var table = rows
        if chosen != nil { table[0][0] = "" }
        for line in Output.table(["", "TITLE", "LAYERS", "ID"], table) { Output.line(line) }
        if gallery.isEmpty { Output.line("This portal names no basemap gallery.") }
    }

    /// The JSON of `mapbook basemaps --json` (see docs/cli.md).
    static func report(portal: URL, webMap: ItemID, own: Basemap, gallery: [BasemapChoice], chosen: Basemap?) -> JSONValue {
        func layers(_ basemap: Basemap) -> JSONValue {
            .array(basemap.layers.map { layer in
                .object(["title": .text(layer.title), "layerType": .text(layer.layerType, width: 64), "url": .text(layer.url, width: 2048),
                         "styleUrl": .text(layer.styleURL, width: 2048), "templateUrl": .text(layer.templateURL, width: 2048),
                         "opacity": .number(layer.opacity), "isReference": .bool(layer.isReference),
                         "drawable": .bool(layer.isDrawableBasemap)])
            })
        }
        return .object([
            "portal": .string(portal.absoluteString),
            "webMap": .object(["id": .string(webMap.rawValue), "basemap": .object([
                "title": .text(own.title), "current": .bool(chosen == nil), "layers": layers(own)])]),
            "gallery": .array(gallery.map { choice in
                .object(["id": .string(choice.item.id.rawValue), "title": .text(choice.item.title),
                         "current": .bool(choice.basemap == chosen), "layers": layers(choice.basemap)])
            }),
        ])
    }
}

/// `--use` named no basemap of the gallery, or several.
struct NoSuchBasemap: UserFacingError {
    let userMessage: String
}
