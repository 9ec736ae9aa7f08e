import ArcGISPortal
import ArgumentParser
import Foundation
import MapbookCore
import OfflineLibrary
import ArcGISModel
import LibraryModel
import MapSources

/// `--data-dir`: where the offline library is.
struct DataDirectoryOption: ParsableArguments {
    @Option(name: .customLong("data-dir"),
            help: ArgumentHelp("The offline library's folder (default: MAPBOOK_DATA_DIR, else $XDG_DATA_HOME/mapbook).",
                               valueName: "DIR"))
    var dataDir: String?

    var root: String { LibraryLocation.root(dataDir: dataDir) }
}

/// The portal, the web map and where the offline library is: shared by the library commands.
struct LibraryOptions: ParsableArguments {
    @OptionGroup var selection: PortalSelection
    @OptionGroup var dataDirectory: DataDirectoryOption

    var library: OfflineLibrary {
        OfflineLibrary(root: dataDirectory.root, portalKey: selection.portalKey, webMap: selection.webMapID, mirror: selection.fleetMirror)
    }

    /// A downloaded area named by id or title, its record, and the web map's operational layers as
    /// the library keeps them (which the area's own data is matched to). No network.
    func downloadedArea(named name: String) throws -> (area: MapArea, record: DownloadRecord, webMapLayers: [WebMapLayer]) {
        let library = self.library
        let records = library.downloadRecords()
        let catalog = try library.loadCatalog(records: records)
        let area = try AreaNames.resolve(name, in: catalog?.areas ?? records.values.compactMap(\.area))
        guard let record = records[area.item.id] else {
            throw MapSourceError("\(Output.cell(area.item.title)) is not downloaded; download it first with `mapbook download`.")
        }
        return (area, record, catalog?.webMap.flatOperationalLayers ?? [])
    }
}

/// Finds the areas a user named, by item id or by title (exact, ignoring case, else the one title
/// that starts with it).
enum AreaNames {
    static func resolve(_ names: [String], in areas: [MapArea]) throws(LibraryError) -> [MapArea] {
        var found: [MapArea] = []
        for name in names {
            let area = try resolve(name, in: areas)
            if !found.contains(where: { $0.item.id == area.item.id }) { found.append(area) }
        }
        return found
    }

    static func resolve(_ name: String, in areas: [MapArea]) throws(LibraryError) -> MapArea {
        if let id = ItemID(name), let area = areas.first(where: { $0.item.id == id }) { return area }
        let wanted = name.trimmingCharacters(in: .whitespaces).lowercased()
        if let exact = areas.first(where: { $0.item.title.lowercased() == wanted }) { return exact }
        let prefixed = areas.filter { $0.item.title.lowercased().hasPrefix(wanted) }
        if prefixed.count == 1 { return prefixed[0] }
        if prefixed.count > 1 { throw .ambiguousArea(name, matches: prefixed.map { Output.cell($0.item.title) }) }
        throw .noSuchArea(name, choices: areas.map(\.item.title))
    }
}
