import ArgumentParser
import Foundation
import MapbookCore
import MobilePackages
import ArcGISModel
import ArcGISPortal

/// `mapbook packages`: the mobile map packages kept on this device; `mapbook import` adds them.
struct PackagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packages",
        abstract: "List the mobile map packages (.mmpk) on this device, or remove one.",
        discussion: """
            They live in the offline library's packages/ folder ($XDG_DATA_HOME/mapbook/packages, or --data-dir), put there \
            by `mapbook import` or copied by hand; `mapbook open` opens them. Works without a network.
            """,
        subcommands: [List.self, Available.self, Remove.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the packages on this device: title, maps, size, when added.")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

        func run() throws {
            let packages = DevicePackages(libraryRoot: dataDirectory.root)
            let entries = packages.list()
            if json { return try Output.json(JSONValue.object(["packages": .array(entries.map(PackagesCommand.json))])) }
            guard !entries.isEmpty else {
                return Output.line("No mobile map packages on this device. Add one with `mapbook import FILE.mmpk`.")
            }
            let rows = entries.map { entry in
                [Output.cell(entry.info?.title ?? entry.fileName, width: 40), Output.cell(entry.fileName, width: 40),
                 entry.problem == nil ? "\(entry.mapNames.count)" : "–", Format.bytes(entry.size),
                 entry.added.map(Format.timestamp) ?? "", entry.problem.map { "cannot be read: " + $0 } ?? ""]
            }
            for line in Output.table(["TITLE", "FILE", "MAPS", "SIZE", "ADDED", ""], rows, rightAligned: [2, 3]) {
                Output.line(line.trimmingCharacters(in: .whitespaces))
            }
        }
    }

    struct Available: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "available",
            abstract: "List the portal's mobile map packages (by default those tagged \"Offline Mapbook\"), and which are on this device.",
            discussion: "mapbook download ID downloads one onto this device; run again, it fetches only a newer version.")
        @OptionGroup var options: PortalOptions
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Option(help: ArgumentHelp("Packages matching the text (default: \"Offline Mapbook\").", valueName: "TEXT")) var query: String?
        @Flag(help: "Your content's packages (needs a sign-in: mapbook auth login).") var mine = false
        @Option(help: "At most this many packages.") var limit = 1_000

        func validate() throws {
            guard !(mine && query != nil) else { throw ValidationError("Give --mine or --query, not both.") }
            guard limit > 0 else { throw ValidationError("--limit must be at least 1.") }
        }

        func run() async throws {
            let client = options.client()
            let found: [FoundWebMap]
            do {
                let cursor = mine ? try await client.myContent() : .search(query ?? "\"\(PortalItem.offlineMapbookKeyword)\"")
                found = try await client.allMobileMapPackages(from: cursor, limit: limit)
            } catch {
                throw Output.fail(error, json: options.json)
            }
            let device = DevicePackages(libraryRoot: dataDirectory.root)
            func state(_ item: PortalItem) -> String? {
                guard let entry = device.downloaded(item.id) else { return nil }
                return entry.isOutdated(by: item) ? "update available" : "on this device"
            }
            if options.json {
                return try Output.json(JSONValue.object(["packages": .array(found.map { package in
                    let item = package.item
                    return .object(["id": .string(item.id.rawValue), "title": .text(item.title), "snippet": .text(item.snippet, width: 400),
                                    "owner": .text(item.owner), "created": .date(item.created), "modified": .date(item.modified),
                                    "size": .count(item.size), "folder": .text(package.place), "onDevice": .text(state(item))])
                })]))
            }
            guard !found.isEmpty else { return Output.line(mine ? "No mobile map packages in your content." : "No mobile map packages match.") }
            let rows = found.map { package in
                [Output.cell(package.item.title, width: 40), package.item.size.map(Format.bytes) ?? "", package.item.created.map { Format.date($0) } ?? "",
                 state(package.item) ?? "", package.item.id.rawValue]
            }
            for line in Output.table(["TITLE", "SIZE", "CREATED", "HERE", "ID"], rows, rightAligned: [1]) {
                Output.line(line.trimmingCharacters(in: .whitespaces))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove packages from this device, by file name or title.")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Argument(help: ArgumentHelp("Packages to remove.", valueName: "PACKAGE")) var names: [String]

        func run() throws {
            let packages = DevicePackages(libraryRoot: dataDirectory.root)
            var failed = false
            for name in names {
                do {
                    let removed = try packages.remove(name)
                    Output.line("Removed \(Output.cell(removed.info?.title ?? removed.fileName)) (\(Format.bytes(removed.size)) freed).")
                } catch {
                    Output.standardError("mapbook: \(error.sentence)")
                    failed = true
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    static func json(_ entry: DevicePackages.Entry) -> JSONValue {
        .object([
            "file": .text(entry.fileName, width: 200),
            "title": .text(entry.info?.title, width: 200),
            "snippet": .text(entry.info?.snippet, width: 400),
            "maps": .array(entry.mapNames.map { .text($0, width: 120) }),
            "size": .number(Double(entry.size)),
            "created": .date(entry.info?.created),
            "modified": .date(entry.info?.modified),
            "added": .date(entry.added),
            "item": .text(entry.origin?.itemID),
            "problem": .text(entry.problem, width: 400),
        ])
    }
}

/// `mapbook import FILE…`: copies mobile map packages onto this device, each read whole first.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Copy mobile map packages (.mmpk files or unpacked folders) into this device's packages.",
        discussion: """
            Each package is read whole first (its maps, and a zipped one's checksums), so what is imported opens. One of \
            the same name is replaced once the new copy is complete. Exit status 1 if any could not be imported.
            """)

    @OptionGroup var dataDirectory: DataDirectoryOption
    @Argument(help: ArgumentHelp("The packages.", valueName: "FILE")) var files: [String]
    @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

    func run() throws {
        let packages = DevicePackages(libraryRoot: dataDirectory.root)
        var failed = false, results: [JSONValue] = []
        for file in files {
            do {
                let (entry, replaced) = try packages.importPackage(from: file)
                let title = Output.cell(entry.info?.title ?? entry.fileName)
                let maps = entry.mapNames.count
                if json {
                    results.append(.object(["file": .text(file, width: 400), "imported": PackagesCommand.json(entry), "replaced": .bool(replaced), "error": .null]))
                } else {
                    Output.line("\(replaced ? "Replaced" : "Imported") \(title) (\(Output.cell(entry.fileName)), \(maps) \(maps == 1 ? "map" : "maps"), \(Format.bytes(entry.size))).")
                }
            } catch {
                failed = true
                if json {
                    results.append(.object(["file": .text(file, width: 400), "imported": .null, "replaced": .bool(false), "error": Output.errorObject(error)]))
                } else {
                    Output.standardError("mapbook: \(error.sentence)")
                }
            }
        }
        if json { try Output.json(JSONValue.object(["files": .array(results)])) }
        if failed { throw ExitCode.failure }
    }
}
