import ArgumentParser
import Foundation
import MapbookCore
import OfflineLibrary

/// `mapbook verify`: re-checks every downloaded package against its size and checksums.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-check every downloaded package: present, the size recorded, and its zip CRC-32 checksums.",
        discussion: "Exit status 1 when any package fails; remove and download such areas again. Works without a network.")

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

    func run() throws {
        let library = options.library
        let records = library.downloadRecords().values.sorted { $0.downloadedAt < $1.downloadedAt }
        var results: [JSONValue] = []
        var failed = 0
        for record in records {
            let title = record.area.map { Output.cell($0.item.title) } ?? record.areaID.rawValue
            let problems = library.verify(record)
            failed += problems.isEmpty ? 0 : 1
            results.append(.object(["id": .string(record.areaID.rawValue), "title": .string(title),
                                    "ok": .bool(problems.isEmpty), "problems": .array(problems.map { .string($0.userSentence) })]))
            if json { continue }
            if problems.isEmpty {
                let count = record.packages.count
                Output.line("ok      \(title): \(count) package\(count == 1 ? "" : "s"), \(Format.bytes(record.size)), "
                            + record.packages.map(\.verifiedBy).joined(separator: ", "))
            } else {
                for problem in problems { Output.line("FAILED  \(title): \(problem.userSentence)") }
            }
        }
        if json {
            try Output.json(JSONValue.object(["library": .string(library.directory), "mapAreas": .array(results)]))
        } else if records.isEmpty {
            Output.line("No map areas are downloaded in \(library.directory).")
        }
        if failed > 0 { throw ExitCode.failure }
    }
}
