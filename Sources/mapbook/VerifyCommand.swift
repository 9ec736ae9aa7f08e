import ArgumentParser
import Foundation
import MapbookCore
import OfflineLibrary
import ArcGISModel
import LibraryModel

/// `mapbook verify`: re-checks every downloaded package against its size and checksums.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-check every downloaded package: present, the size recorded, and its zip CRC-32 checksums.",
        discussion: """
            Exit status 1 when any package fails. Works without a network, except with --repair, which \
            downloads the areas that failed again from the portal (exit status as for download).
            """)

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Download the areas whose packages fail again, and check them.") var repair = false
    @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

    func run() async throws {
        let interrupt = InterruptHandler()
        defer { interrupt.cancel() }
        let library = options.library
        // Every record, also those whose files are gone: those are what most need telling about.
        let records = library.storedRecords().values.sorted { $0.downloadedAt < $1.downloadedAt }
        var results: [JSONValue] = []
        var failed: [DownloadRecord] = []
        for record in records {
            let title = record.area.map { Output.cell($0.item.title) } ?? record.areaID.rawValue
            let problems = library.verify(record)
            if !problems.isEmpty { failed.append(record) }
            // Whole but damaged upstream, or not drawable, is not a failure: downloading again
            // would not change it.
            let tiles = problems.isEmpty ? library.checkTiles(record) : nil
            let drawProblem = tiles?.drawProblem
            results.append(.object(["id": .string(record.areaID.rawValue), "title": .string(title),
                                    "ok": .bool(problems.isEmpty), "problems": .array(problems.map { .string($0.userSentence) }),
                                    "drawProblem": .text(drawProblem, width: 300),
                                    "tilesChecked": tiles.map { .number(Double($0.checked)) } ?? .null,
                                    "tilesDamaged": tiles.map { .number(Double($0.damaged)) } ?? .null]))
            if json { continue }
            if problems.isEmpty {
                let count = record.packages.count
                Output.line("ok      \(title): \(count) package\(count == 1 ? "" : "s"), \(Format.bytes(record.size)), "
                            + record.packages.map(\.verifiedBy).joined(separator: ", ")
                            + (drawProblem.map { "; it cannot be drawn: \(Output.cell($0, width: 300))" }
                               ?? tiles?.damageSummary.map { "; \($0)" } ?? ""))
            } else {
                for problem in problems { Output.line("FAILED  \(title): \(problem.userSentence)") }
            }
        }
        if json {
            // With --repair the download's JSON lines follow, so this is one line too.
            repair ? Output.jsonLine(["library": .string(library.directory), "mapAreas": .array(results)])
                   : try Output.json(JSONValue.object(["library": .string(library.directory), "mapAreas": .array(results)]))
        } else if records.isEmpty {
            Output.line("No map areas are downloaded in \(library.directory).")
        }
        guard !failed.isEmpty else { return }
        guard repair else { throw ExitCode.failure }

        // The portal's current description of each area if it has one, else the one recorded.
        let client = options.selection.client()
        let current: [MapArea]
        let keptLayers: [WebMapLayer]
        do {
            let catalog = try await library.sync(from: client)
            current = failed.compactMap { record in catalog.areas.first { $0.item.id == record.areaID } ?? record.area }
            keptLayers = catalog.webMap.keptLayers
        } catch {
            throw Output.fail(error, json: json)
        }
        try await DownloadRun(library: library, client: client, report: DownloadReport(json: json), interrupt: interrupt,
                              keptLayers: keptLayers)
            .perform(current)
    }
}
