import ArcGISModel
import ArgumentParser
import Foundation
import LibraryModel
import MapbookCore
import OfflineLibrary
import Synchronization

/// `mapbook stage`: a web map's areas into a fleet mirror, a folder nginx or an object store
/// serves to every device (docs/fleet.md).
struct StageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stage",
        abstract: "Stage a web map's areas into a mirror folder that nginx or an object store serves to many devices.",
        discussion: """
            Writes the web map's item and data, its areas' items and package lists, their packages and thumbnails \
            into DIR, laid out by the REST paths they answer, and mirror.json with every file's size and SHA-256. \
            Run again, it fetches only packages the portal has changed and removes what it no longer lists; a run \
            that stops resumes. An AREA that is the id of a Mobile Map Package item stages that package. Serve DIR with scripts/mirror/serve DIR PORT, and point devices at it with --mirror \
            URL. Content that is not public is staged only with --include-private. With --json, each event is one \
            JSON object per line.
            """)

    @OptionGroup var selection: PortalSelection
    @Argument(help: ArgumentHelp("Map areas to stage (item id or title), or Mobile Map Package item ids.", valueName: "AREA")) var areas: [String] = []
    @Flag(help: "Stage every downloadable area of the web map.") var all = false
    @Option(name: .long, help: ArgumentHelp("The mirror's folder (made if missing).", valueName: "DIR")) var to: String
    @Flag(name: .customLong("include-private"), help: "Stage content that is not public too (the mirror serves it to anyone who reaches it).")
    var includePrivate = false
    @Flag(help: "Print JSON lines instead of text.") var json = false

    func validate() throws {
        guard !(all && areas.isEmpty == false && areas.allSatisfy({ ItemID($0) == nil })) else {
            throw ValidationError("Name the areas to stage, or give --all, not both.")
        }
        guard all || !areas.isEmpty else { throw ValidationError("Name the areas (or mobile map package items) to stage, or give --all.") }
        guard !to.isEmpty else { throw ValidationError("--to needs a folder.") }
    }

    func run() async throws {
        let client = selection.client()
        let report = StageReport(json: json, directory: to)
        // Mobile map package items named by id are staged on their own; the rest are the web map's areas.
        let packageItems = await PackageDownloadRun.packageItems(among: areas, client: client, mirror: nil)
        let names = areas.filter { name in !packageItems.contains { $0.id.rawValue == name } }
        var stages = packageItems.map { MirrorStage.Content.mobileMapPackage($0.id) }
        if all || !names.isEmpty {
            stages.append(.webMap(selection.webMapID, all ? .all : .chosen { try AreaNames.resolve(names, in: $0) }))
        }
        for content in stages {
            let stage = MirrorStage(client: client, directory: to, content: content, includePrivate: includePrivate)
            do {
                report.done(try await stage.run(report.show), content: content)
            } catch {
                throw Output.fail(error, json: json)
            }
        }
    }
}

/// How `mapbook stage` tells what happens: a line per package, or JSON lines. Events come from the
/// stage's task and (progress) the HTTP thread, printed in the order they happen.
final class StageReport: Sendable {
    private struct Counts {
        var lastProgress: [ItemID: Double] = [:]
        var fetched = 0, unchanged = 0
    }
    private let json: Bool
    private let directory: String
    private let counts = Mutex(Counts())

    init(json: Bool, directory: String) { self.json = json; self.directory = directory }

    @Sendable func show(_ event: MirrorStage.Event) {
        counts.withLock { take(event, &$0) }
    }

    private func take(_ event: MirrorStage.Event, _ counts: inout Counts) {
        switch event {
        case .planned(let title, let areas, let packages, let bytes):
            if json {
                Output.jsonLine(["event": .string("planned"), "title": .text(title), "areas": .count(Int64(areas)),
                                 "packages": .count(Int64(packages)), "bytes": .count(bytes)])
            } else {
                let counted = (areas > 0 ? ["\(areas) area\(areas == 1 ? "" : "s")"] : []) + ["\(packages) package\(packages == 1 ? "" : "s")"]
                Output.line("Staging \(Output.cell(title)) into \(directory): \(counted.joined(separator: ", ")) (\(Format.bytes(bytes))).")
            }
        case .fetching(let id, let title, let size):
            if json {
                Output.jsonLine(["event": .string("fetching"), "package": .string(id.rawValue), "title": .text(title), "size": .count(size)])
            } else {
                Output.line("  \(Output.cell(title)): fetching \(size.map(Format.bytes) ?? "")…")
            }
        case .progress(let id, let bytes, let total):
            let now = ProcessInfo.processInfo.systemUptime
            guard json, now - (counts.lastProgress[id] ?? 0) >= 1 else { return }
            counts.lastProgress[id] = now
            Output.jsonLine(["event": .string("progress"), "package": .string(id.rawValue), "bytes": .count(bytes), "total": .count(total)])
        case .staged(let id, let title, let file, let wasFetched):
            if wasFetched { counts.fetched += 1 } else { counts.unchanged += 1 }
            if json {
                Output.jsonLine(["event": .string("staged"), "package": .string(id.rawValue), "title": .text(title), "path": .string(file.path),
                                 "size": .count(file.size), "sha256": .string(file.sha256), "fetched": .bool(wasFetched),
                                 "verifiedBy": .text(file.verifiedBy)])
            } else {
                Output.line("  \(Output.cell(title)): \(wasFetched ? "staged, verified (\(file.verifiedBy ?? "size"))" : "unchanged"), "
                            + "\(Format.bytes(file.size)), SHA-256 \(file.sha256.prefix(12))…")
            }
        case .removed(let paths):
            if json {
                Output.jsonLine(["event": .string("removed"), "paths": .array(paths.map(JSONValue.string))])
            } else if !paths.isEmpty {
                Output.line("Removed \(paths.count) file\(paths.count == 1 ? "" : "s") the portal no longer lists.")
            }
        }
    }

    func done(_ index: MirrorIndex, content: MirrorStage.Content) {
        let files: [MirrorFile], areas: Int
        switch content {
        case .webMap(let id, _): (files, areas) = (index.webMap(id)?.files ?? [], index.webMap(id)?.areas.count ?? 0)
        case .mobileMapPackage(let id): (files, areas) = (index.mobileMapPackage(id)?.files ?? [], 0)
        }
        let bytes = files.map(\.size).reduce(0, +)
        let (fetched, unchanged) = counts.withLock { counts in
            defer { counts.fetched = 0; counts.unchanged = 0 }
            return (counts.fetched, counts.unchanged)
        }
        if json {
            Output.jsonLine(["event": .string("done"), "mirror": .string(directory), "areas": .count(Int64(areas)),
                             "files": .count(Int64(files.count)), "bytes": .count(bytes), "fetched": .count(Int64(fetched)),
                             "unchanged": .count(Int64(unchanged)), "includesPrivate": .bool(index.includesPrivate)])
        } else {
            let what = areas > 0 ? "\(areas) area\(areas == 1 ? "" : "s")" : "the package"
            Output.line("Staged \(what): \(files.count) files, \(Format.bytes(bytes)) "
                        + "(\(fetched) package\(fetched == 1 ? "" : "s") fetched, \(unchanged) unchanged)"
                        + (index.includesPrivate ? "; the mirror holds content that is not public." : ".")
                        + " Serve it with scripts/mirror/serve \(directory) PORT.")
        }
    }
}
