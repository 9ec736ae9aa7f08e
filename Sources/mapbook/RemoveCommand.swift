import ArgumentParser
import Foundation
import MapbookCore
import OfflineLibrary
import MapbookServices

/// `mapbook remove`: deletes areas' downloads, partial ones included.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove downloaded map areas (and any partial download) from the offline library.",
        discussion: """
            AREA is an item id or a title. The area stays listed, as not downloaded. Works without a network. \
            An area another mapbook is downloading is not removed (exit status 1): stop that download first.
            """)

    @OptionGroup var options: LibraryOptions
    @Argument(help: ArgumentHelp("Map areas to remove.", valueName: "AREA")) var areas: [String]

    func run() throws {
        let library = options.library
        do {
            let records = library.storedRecords()
            let known = try library.loadCatalog(records: records)?.areas ?? records.values.compactMap(\.area)
            let partial = library.partialDownloads()
            // The journal is not the packages': removing an area never takes its edits.
            let edits = AreaEditor.unsyncedEdits(in: library)
            for area in try AreaNames.resolve(areas, in: known) {
                let id = area.item.id, title = Output.cell(area.item.title)
                let record = records[id]
                guard record != nil || partial[id] != nil else {
                    Output.line("\(title) is not downloaded; nothing to remove.")
                    continue
                }
                try library.removeDownload(id, title: area.item.title)
                let freed = (record?.size ?? 0) + (partial[id] ?? 0)
                Output.line("Removed \(title) (\(Format.bytes(freed)) freed)."
                            + (edits[id].map { " Its \($0) edit\($0 == 1 ? "" : "s") not synced stay on this device: `mapbook edits list` shows them." } ?? ""))
            }
        } catch {
            throw Output.fail(error, json: false)
        }
    }
}
