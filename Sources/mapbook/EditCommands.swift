import ArgumentParser
import ArcGISModel
import Editing
import Foundation
import Geometry
import MapbookCore
import MapbookServices
import OfflineLibrary

/// `mapbook feature add|update|delete`: an edit of a downloaded area's feature layer, checked
/// against the layer's fields and saved to the area's journal before the command returns.
struct FeatureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feature",
        abstract: "Add, change or delete a feature of a downloaded area, offline; the edit waits in the area's journal.",
        discussion: """
            The layer's own fields say what may be set: their type, length, coded values and range, and which are \
            required. The edit is on disk (fsynced) when the command returns; `mapbook edits list` shows what waits.
            """,
        subcommands: [Add.self, Update.self, Delete.self])

    /// What every feature command takes: the library, the area, the layer.
    struct Target: ParsableArguments {
        @OptionGroup var library: LibraryOptions
        @Option(help: ArgumentHelp("The downloaded map area (item id or title).", valueName: "AREA")) var area: String
        @Option(help: ArgumentHelp("The layer, by its title in the area.", valueName: "NAME")) var layer: String
        @Flag(help: "Print the saved edit as JSON (described in docs/cli.md).") var json = false

        func editor() async throws -> AreaEditor {
            let downloaded = try library.downloadedArea(named: area)
            return try await AreaEditor.open(area: downloaded.area.item.id, title: downloaded.area.item.title, library: library.library,
                                             webMapLayers: downloaded.webMapLayers)
        }
    }

    /// Where the feature is: a point, or any GeoJSON shape.
    struct Shape: ParsableArguments {
        @Option(parsing: .unconditional, help: ArgumentHelp("A point: longitude, latitude (such as -69.2,44.3).", valueName: "LON,LAT"))
        var at: String?
        @Option(help: ArgumentHelp("A GeoJSON geometry (Point, LineString, Polygon or Multi…), in longitude and latitude.", valueName: "GEOJSON"))
        var geometry: String?

        func validate() throws {
            guard at == nil || geometry == nil else { throw ValidationError("Give --at or --geometry, not both.") }
            if let at, GeoPoint(parsing: at) == nil { throw ValidationError(GeoPoint.notAPoint(at, what: "--at")) }
        }

        /// The shape given, or nil for none.
        func parsed() throws -> GeoGeometry? {
            if let at { return GeoPoint(parsing: at).map { .points([$0]) } }
            return try geometry.map(AreaEditor.geometry(geoJSON:))
        }
    }

    /// `--set FIELD=VALUE`, as many as wanted.
    struct Values: ParsableArguments {
        @Option(name: .customLong("set"), parsing: .unconditionalSingleValue,
                help: ArgumentHelp("A field's value (by the field's name or alias); an empty value clears it.", valueName: "FIELD=VALUE"))
        var values: [String] = []

        func validate() throws {
            for value in values where !value.contains("=") || value.hasPrefix("=") {
                throw ValidationError("--set takes FIELD=VALUE, not “\(Output.cell(value, width: 60))”.")
            }
        }

        var pairs: [(field: String, typed: String)] {
            values.map { value in
                let parts = value.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]).trimmingCharacters(in: .whitespaces), parts.count > 1 ? String(parts[1]) : "")
            }
        }
    }

    /// `--attach FILE`, as many as wanted: photos of the site, kept with the area until synced.
    struct Files: ParsableArguments {
        @Option(name: .customLong("attach"), help: ArgumentHelp("A file to attach (a regular file of at most 10 MiB), copied into the area at once.",
                                                               valueName: "FILE"))
        var paths: [String] = []
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a feature.")
        @OptionGroup var target: Target
        @OptionGroup var shape: Shape
        @OptionGroup var values: Values
        @OptionGroup var files: Files

        func validate() throws {
            guard shape.at != nil || shape.geometry != nil else { throw ValidationError("Give where the feature is: --at LON,LAT or --geometry GEOJSON.") }
        }

        func run() async throws {
            try await FeatureCommand.save(json: target.json) {
                try await target.editor().add(to: target.layer, geometry: try shape.parsed()!, values: values.pairs, attaching: files.paths)
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "update", abstract: "Change a feature's values or move it.")
        @OptionGroup var target: Target
        @Option(parsing: .unconditional, help: ArgumentHelp("The feature's object id (a feature added here and not yet synced: -N for edit N).", valueName: "OBJECTID")) var id: Int64
        @OptionGroup var shape: Shape
        @OptionGroup var values: Values
        @OptionGroup var files: Files

        func run() async throws {
            try await FeatureCommand.save(json: target.json) {
                try await target.editor().update(id, of: target.layer, geometry: try shape.parsed(), values: values.pairs, attaching: files.paths)
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a feature.")
        @OptionGroup var target: Target
        @Option(parsing: .unconditional, help: ArgumentHelp("The feature's object id (a feature added here and not yet synced: -N for edit N).", valueName: "OBJECTID")) var id: Int64

        func run() async throws {
            try await FeatureCommand.save(json: target.json) { try await target.editor().delete(id, of: target.layer) }
        }
    }

    /// Saves through `body` and says what was saved, or fails in one sentence.
    static func save(json: Bool, _ body: () async throws -> FeatureEdit) async throws {
        let edit: FeatureEdit
        do { edit = try await body() } catch { throw Output.fail(error, json: json) }
        if json { return try Output.json(EditsCommand.json(edit)) }
        Output.line("Saved edit \(edit.sequence): \(edit.summary). It waits to be synced.")
    }
}

/// `mapbook edits list|undo|redo|discard`: the edits waiting in the areas' journals.
struct EditsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edits",
        abstract: "The edits saved offline: list them, sync them, undo or redo the last, discard one.",
        subcommands: [List.self, Show.self, Diff.self, Sync.self, Undo.self, Redo.self, Discard.self, Export.self, Import.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The edits of every area (or one), in the order saved.")
        @OptionGroup var library: LibraryOptions
        @Option(help: ArgumentHelp("Only this downloaded area (item id or title).", valueName: "AREA")) var area: String?
        @Flag(help: "Also the edits synced already.") var all = false
        @Flag(help: "Print JSON (described in docs/cli.md).") var json = false

        func run() throws {
            var listed: [(title: String, id: ItemID, edits: [FeatureEdit])] = []
            do {
                for (title, id) in try EditsCommand.journals(library, area: area) {
                    let journal = try EditJournal(areaFolder: library.library.areaDirectory(id))
                    if let kept = journal.keptAside { Output.problem("The edit journal of \(title) was damaged; it is kept at \(kept), and a new one was started.") }
                    listed.append((title, id, try all ? journal.all() : journal.unsynced()))
                }
            } catch {
                throw Output.fail(error, json: json)
            }
            if json {
                return try Output.json(JSONValue.object(["areas": .array(listed.map { entry in
                    .object(["area": .string(entry.id.rawValue), "title": .text(entry.title),
                             "unsynced": .number(Double(entry.edits.filter(\.isUnsynced).count)), "edits": .array(entry.edits.map(EditsCommand.json))])
                })]))
            }
            let waiting = listed.filter { !$0.edits.isEmpty }
            guard !waiting.isEmpty else { return Output.line(all ? "No edits saved." : "No edits wait to be synced.") }
            for entry in waiting {
                let count = entry.edits.filter(\.isUnsynced).count
                Output.line("\(Output.cell(entry.title)): \(count) edit\(count == 1 ? "" : "s") not synced")
                let rows = entry.edits.map { edit in
                    [String(edit.sequence), edit.kind.rawValue, Output.cell(edit.layer.title, width: 32), Format.date(edit.savedAt, time: true),
                     EditsCommand.statusText(edit.status), EditsCommand.valuesText(edit)]
                }
                for line in Output.table(["#", "EDIT", "LAYER", "SAVED", "STATUS", "VALUES"], rows) { Output.line("  " + line) }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One edit in full: its values beside those before it, its shape, and why the server refused it.")
        @OptionGroup var journal: AreaJournal
        @Argument(help: "The edit's number, as `mapbook edits list` shows it.") var number: Int64
        @Flag(help: "Print JSON (described in docs/cli.md).") var json = false

        func run() throws {
            let edit: FeatureEdit
            do {
                guard let found = try journal.open().all().first(where: { $0.sequence == number }) else {
                    throw EditRefused("No edit \(number) is kept for \(Output.cell(journal.area)): see `mapbook edits list --all`.")
                }
                edit = found
            } catch {
                throw Output.fail(error, json: json)
            }
            if json { return try Output.json(EditsCommand.json(edit)) }
            Output.line("Edit \(edit.sequence): \(edit.summary)")
            Output.line("  Saved     \(Format.date(edit.savedAt, time: true))")
            Output.line("  Status    \(EditsCommand.statusText(edit.status))")
            Output.line("  GlobalID  \(Output.cell(edit.globalID, width: 40))")
            if let service = edit.layer.serviceLayerURL { Output.line("  Service   \(Output.cell(service, width: 200))") }
            if let shape = edit.geometry { Output.line("  Shape     \(Output.cell(shape.compactText, width: 200))") }
            let rows = edit.attributes.keys.sorted().map { field in
                [Output.cell(field, width: 40), Self.value(edit.attributes[field]), edit.original.map { Self.value($0[field]) } ?? "(not known)"]
            }
            if !rows.isEmpty {
                for line in Output.table(["FIELD", edit.kind == .add ? "VALUE" : "NOW", "BEFORE"], rows) { Output.line("  " + line) }
            }
        }

        static func value(_ value: JSONValue?) -> String {
            guard let value, value != .null else { return "(empty)" }
            return Output.cell(value.string ?? value.compactText, width: 60)
        }
    }

    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "What a sync would send, change by change, as a reviewer reads a patch.",
            discussion: """
                Each feature's edits are folded into the one change a sync sends: added then changed is one add, added \
                then deleted is nothing. Exit status: 0 when nothing waits, 5 when changes wait, 6 when one of them was \
                refused by the server (its reason is shown).
                """)
        @OptionGroup var library: LibraryOptions
        @Option(help: ArgumentHelp("Only this area (item id or title).", valueName: "AREA")) var area: String?
        @Flag(help: "Print JSON (described in docs/cli.md).") var json = false

        func run() throws {
            var areas: [(title: String, id: ItemID, changes: [PendingChange])] = []
            do {
                for (title, id) in try EditsCommand.journals(library, area: area) {
                    let changes = PendingChange.of(try EditJournal(areaFolder: library.library.areaDirectory(id)).unsynced())
                    if !changes.isEmpty { areas.append((title, id, changes)) }
                }
            } catch {
                throw Output.fail(error, json: json)
            }
            let all = areas.flatMap(\.changes)
            if json {
                try Output.json(JSONValue.object([
                    "waiting": .number(Double(all.count)), "refused": .number(Double(all.filter { $0.refused != nil }.count)),
                    "areas": .array(areas.map { entry in
                        .object(["area": .string(entry.id.rawValue), "title": .text(entry.title), "changes": .array(entry.changes.map(Self.json))])
                    }),
                ]))
            } else if all.isEmpty {
                Output.line("Nothing waits to be synced.")
            } else {
                for entry in areas {
                    var layer: EditLayer?
                    for change in entry.changes {
                        if change.layer != layer {
                            layer = change.layer
                            Output.line("\(Output.cell(entry.title)) · \(Output.cell(change.layer.title, width: 60))"
                                        + (change.layer.serviceLayerURL.map { " → " + Output.cell($0, width: 200) } ?? " (no service named: it cannot be synced)"))
                        }
                        Self.patch(change).forEach(Output.line)
                    }
                }
                let refused = all.filter { $0.refused != nil }.count
                Output.line("\(all.count) change\(all.count == 1 ? "" : "s") wait\(all.count == 1 ? "s" : "") to be synced" + (refused > 0 ? "; \(refused) refused." : "."))
            }
            guard !all.isEmpty else { return }
            throw ExitCode(all.contains { $0.refused != nil } ? 6 : 5)
        }

        /// `+ add …`, `~ update 3 …`, `- delete 5 …`, then a line per value, and the refusal.
        static func patch(_ change: PendingChange) -> [String] {
            let (mark, head): (String, String) = switch change.kind {
            case .add: ("+", "add")
            case .update: ("~", "update \(change.objectID.map(String.init) ?? "")")
            case .delete: ("-", "delete \(change.objectID.map(String.init) ?? "")")
            }
            let point = change.geometry.flatMap(GeoJSON.geometry).flatMap { if case .points(let p) = $0, p.count == 1 { p[0] } else { nil } }
            let shape = change.geometry == nil ? "" : point.map { " at \($0.written())" } ?? " (a new shape)"
            let numbers = change.sequences.map(String.init).joined(separator: ", ")
            var lines = ["\(mark) \(head) \(Output.cell(change.globalID, width: 40))\(shape) (edit\(change.sequences.count == 1 ? "" : "s") \(numbers))"
                .replacingOccurrences(of: "  ", with: " ")]
            for (field, value) in change.attributes.sorted(by: { $0.key < $1.key }) {
                let text = value == .null ? "(empty)" : value.string ?? value.compactText
                lines.append("\(mark)     \(Output.cell(field, width: 60)) = \(Output.cell(text, width: 200))")
            }
            if let refused = change.refused { lines.append("!     refused: \(Output.cell(refused, width: 300))") }
            return lines
        }

        static func json(_ change: PendingChange) -> JSONValue {
            .object([
                "change": .string(change.kind.rawValue), "layer": .text(change.layer.title), "serviceLayer": .text(change.layer.serviceLayerURL),
                "globalId": .text(change.globalID.isEmpty ? nil : change.globalID), "objectId": change.objectID.map { .number(Double($0)) } ?? .null,
                "geometry": change.geometry ?? .null,
                "attributes": .object(change.attributes.mapValues(EditsCommand.shown)),
                "edits": .array(change.sequences.map { .number(Double($0)) }), "refused": .text(change.refused),
            ])
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Send the edits waiting in every area (or one) to their feature services, and report on each.",
            discussion: """
                Each feature's edits go as one change by applyEdits, with the GlobalID made when it was saved: a sync cut \
                off and run again never adds a feature twice. A change the server refuses stays in the journal, marked \
                with the server's reason, until fixed or discarded. Exit status: 0 when everything was synced, 5 when \
                changes still wait (the network, a server error), 6 when the server refused one.
                """)
        @OptionGroup var library: LibraryOptions
        @Option(help: ArgumentHelp("Only this area (item id or title).", valueName: "AREA")) var area: String?
        @Flag(help: "Ask the services, send nothing: say what would be sent and what they hold already.") var dryRun = false
        @Option(help: ArgumentHelp("A change the server made too: keep it for a decision (ask, the default), send yours (mine), or keep the server's values (theirs).",
                                   valueName: "ask|mine|theirs"))
        var prefer: EditSync.ConflictPolicy = .ask
        @Flag(help: "Print JSON (described in docs/cli.md).") var json = false

        func run() async throws {
            var reports: [(id: ItemID, report: SyncReport)] = []
            do {
                let syncer = EditSyncer(client: library.selection.client(), conflicts: prefer)
                for (title, id) in try EditsCommand.journals(library, area: area) {
                    guard try !EditJournal(areaFolder: library.library.areaDirectory(id)).unsynced().isEmpty else { continue }
                    reports.append((id, try await syncer.sync(area: id, title: title, library: library.library, dryRun: dryRun)))
                }
            } catch {
                throw Output.fail(error, json: json)
            }
            let total = reports.reduce(0) { $0 + $1.report.total }, done = reports.reduce(0) { $0 + $1.report.done }
            let refused = reports.reduce(0) { $0 + $1.report.refused }, waiting = reports.reduce(0) { $0 + $1.report.waiting }
            if json {
                try Output.json(JSONValue.object([
                    "dryRun": .bool(dryRun), "synced": .number(Double(done)), "refused": .number(Double(refused)),
                    "waiting": .number(Double(waiting)),
                    "areas": .array(reports.map { entry in
                        .object(["area": .string(entry.id.rawValue), "title": .text(entry.report.areaTitle),
                                 "changes": .array(entry.report.entries.map(Self.json)), "serverChanges": .text(entry.report.serverChanges),
                                 "attachments": .array(entry.report.attachments.map(Self.json))])
                    }),
                ]))
            } else if total == 0 {
                Output.line("Nothing waits to be synced.")
            } else {
                for (_, report) in reports {
                    Output.line("\(Output.cell(report.areaTitle)): \(report.total) change\(report.total == 1 ? "" : "s")")
                    report.entries.forEach { Output.line("  " + $0.line) }
                    report.attachments.forEach { Output.line("  " + $0.line) }
                    if let changes = report.serverChanges { Output.line("  " + Output.cell(changes, width: 300)) }
                }
                Output.line(dryRun ? "Dry run: nothing was sent; \(waiting) change\(waiting == 1 ? "" : "s") would be."
                            : "Synced \(done) of \(total) change\(total == 1 ? "" : "s")"
                              + (refused > 0 ? "; \(refused) refused (they stay in the journal: fix or discard them)" : "")
                              + (waiting > 0 ? "; \(waiting) still wait\(waiting == 1 ? "s" : "")" : "") + ".")
            }
            if refused > 0 { throw ExitCode(6) }
            if waiting > 0 { throw ExitCode(5) }
        }

        /// `added   Places {…} (edit 3) as object id 257`, `refused Places 40 (edit 5): reason`.
        static func json(_ entry: SyncReport.AttachmentEntry) -> JSONValue {
            let (outcome, reason): (String, String?) = switch entry.outcome {
            case .added: ("added", nil)
            case .alreadyThere, .updated, .deleted, .tookTheirs: ("alreadyThere", nil)
            case .refused(let why): ("refused", why)
            case .waiting(let why): ("waiting", why)
            case .wouldBeSent: ("wouldBeSent", nil)
            case .conflict(let fields): ("conflict", EditSync.sentence(fields))
            }
            var serverID: JSONValue = .null
            if case .added(let id?) = entry.outcome { serverID = .number(Double(id)) }
            return .object(["name": .text(entry.attachment.name), "size": .number(Double(entry.attachment.size)),
                            "layer": .text(entry.attachment.layer.title), "globalId": .text(entry.attachment.featureGlobalID),
                            "edit": .number(Double(entry.attachment.edit)), "outcome": .string(outcome), "reason": .text(reason),
                            "serverAttachmentId": serverID])
        }

        static func json(_ entry: SyncReport.Entry) -> JSONValue {
            guard case .object(var members) = Diff.json(entry.change) else { return .null }
            let (outcome, reason, objectID): (String, String?, Int64?) = switch entry.outcome {
            case .added(let id): ("added", nil, id)
            case .updated: ("updated", nil, nil)
            case .deleted: ("deleted", nil, nil)
            case .alreadyThere: ("alreadyThere", nil, nil)
            case .refused(let why): ("refused", why, nil)
            case .waiting(let why): ("waiting", why, nil)
            case .wouldBeSent: ("wouldBeSent", nil, nil)
            case .conflict(let fields): ("conflict", EditSync.sentence(fields), nil)
            case .tookTheirs: ("tookTheirs", nil, nil)
            }
            if case .conflict(let fields) = entry.outcome {
                members["conflicts"] = .array(fields.map { clash in
                    .object(["field": .text(clash.field), "mine": EditsCommand.shown(clash.mine), "theirs": EditsCommand.shown(clash.theirs), "was": EditsCommand.shown(clash.was)])
                })
            }
            members["outcome"] = .string(outcome)
            members["reason"] = .text(reason)
            members["serverObjectId"] = objectID.map { .number(Double($0)) } ?? .null
            return .object(members)
        }
    }

    /// Options of the commands that change one area's journal.
    struct AreaJournal: ParsableArguments {
        @OptionGroup var library: LibraryOptions
        @Option(help: ArgumentHelp("The downloaded map area (item id or title).", valueName: "AREA")) var area: String

        func open() throws -> EditJournal {
            let downloaded = try library.downloadedArea(named: area)
            return try EditJournal(areaFolder: library.library.areaDirectory(downloaded.area.item.id))
        }

        /// Undo or redo: the edit it moved said, or `none` when there was none.
        func step(_ move: (EditJournal) throws -> FeatureEdit?, none: String, said: (FeatureEdit) -> String) throws {
            do {
                Output.line(try move(open()).map(said) ?? none)
            } catch {
                throw Output.fail(error, json: false)
            }
        }
    }

    struct Undo: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "undo", abstract: "Undo the last edit not yet synced.")
        @OptionGroup var journal: AreaJournal

        func run() throws {
            try journal.step({ try $0.undo() }, none: "No edit to undo.") {
                "Undid edit \($0.sequence): \($0.summary). `mapbook edits redo` brings it back."
            }
        }
    }

    struct Redo: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "redo", abstract: "Bring back the edit undone last.")
        @OptionGroup var journal: AreaJournal

        func run() throws {
            try journal.step({ try $0.redo() }, none: "No edit to redo.") { "Redid edit \($0.sequence): \($0.summary)." }
        }
    }

    struct Discard: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "discard", abstract: "Discard an edit not yet synced, by its number.")
        @OptionGroup var journal: AreaJournal
        @Argument(help: "The edit's number, as `mapbook edits list` shows it.") var number: Int64

        func run() throws {
            do {
                guard try journal.open().discard(number) else {
                    throw EditRefused("No edit \(number) waits in \(Output.cell(journal.area)): see `mapbook edits list`.")
                }
                Output.line("Discarded edit \(number).")
            } catch {
                throw Output.fail(error, json: false)
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Write the edits not yet synced to a file, to carry them to a device that can sync.")
        @OptionGroup var library: LibraryOptions
        @Option(help: ArgumentHelp("Only this area (item id or title).", valueName: "AREA")) var area: String?
        @Argument(help: ArgumentHelp("The file to write (a USB stick, the fleet mirror's folder).", valueName: "FILE")) var file: String

        func run() throws {
            do {
                var areas: [(area: String, title: String, edits: [FeatureEdit])] = []
                for (title, id) in try EditsCommand.journals(library, area: area) {
                    let edits = try EditJournal(areaFolder: library.library.areaDirectory(id)).unsynced()
                    if !edits.isEmpty { areas.append((id.rawValue, title, edits)) }
                }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                // Written whole and fsynced before it is renamed into place: a stick pulled early leaves no half file.
                try AtomicFile.write(try encoder.encode(EditExchange.document(areas)), to: file)
                let count = areas.reduce(0) { $0 + $1.edits.count }
                Output.line("Exported \(count) edit\(count == 1 ? "" : "s") of \(areas.count) area\(areas.count == 1 ? "" : "s") to \(Output.cell(file, width: 200)).")
            } catch {
                throw Output.fail(error, json: false)
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Take edits exported on another device into this device's journals (again changes nothing).")
        @OptionGroup var library: LibraryOptions
        @Argument(help: ArgumentHelp("A file written by `mapbook edits export`.", valueName: "FILE")) var file: String

        func run() throws {
            do {
                guard let handle = FileHandle(forReadingAtPath: file) else { throw EditJournalError("\(Output.cell(file, width: 200)) cannot be read.") }
                defer { try? handle.close() }
                let data = try handle.read(upToCount: EditExchange.largestFile + 1) ?? Data()
                for entry in try EditExchange.read(data) {
                    guard let id = ItemID(entry.area) else { continue }
                    let folder = library.library.areaDirectory(id)
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    let (added, here) = try EditJournal(areaFolder: folder).adopt(entry.edits)
                    Output.line("\(Output.cell(entry.title)): \(added) edit\(added == 1 ? "" : "s") imported" + (here > 0 ? " (\(here) already here)." : "."))
                }
            } catch {
                throw Output.fail(error, json: false)
            }
        }
    }

    /// The areas with a journal (every one, or the one named), with their titles.
    static func journals(_ options: LibraryOptions, area: String?) throws -> [(title: String, id: ItemID)] {
        if let area {
            let downloaded = try options.downloadedArea(named: area)
            return [(downloaded.area.item.title, downloaded.area.item.id)]
        }
        let library = options.library
        let records = library.downloadRecords()
        let catalog = (try? library.loadCatalog(records: records)) ?? nil
        var titles = Dictionary(catalog?.areas.map { ($0.item.id, $0.item.title) } ?? [], uniquingKeysWith: { a, _ in a })
        // What the browser edited online is kept under the web map's own id.
        if let webMap = catalog?.webMapItem { titles[webMap.id] = "\(webMap.title) (online)" }
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: library.directory + "/areas")) ?? []
        // A removed area's journal stays (its edits are not lost with its packages): listed by id.
        return folders.sorted().compactMap { name in
            guard let id = ItemID(name), FileManager.default.fileExists(atPath: library.areaDirectory(id) + "/" + EditJournal.fileName) else { return nil }
            return (titles[id] ?? records[id]?.area?.item.title ?? name, id)
        }
    }

    static func statusText(_ status: FeatureEdit.Status) -> String {
        switch status {
        case .pending: "not synced"
        case .synced: "synced"
        case .refused(let reason): "refused: " + Output.cell(reason, width: 80)
        case .undone: "undone"
        }
    }

    static func valuesText(_ edit: FeatureEdit) -> String {
        let values = edit.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.string ?? ($0.value == .null ? "" : $0.value.compactText))" }
        return Output.cell(values.joined(separator: " "), width: 80)
    }

    /// "add to Sites at -69.20000,44.30000", "delete 42 of Roads".
    /// A value as printed: text — typed, or the server's — stripped of control characters.
    static func shown(_ value: JSONValue) -> JSONValue {
        if case .string(let text) = value { .text(text, width: 65_536) } else { value }
    }

    /// An edit as the JSON of `feature` and `edits list` gives it (docs/cli.md).
    static func json(_ edit: FeatureEdit) -> JSONValue {
        var reason: JSONValue = .null
        if case .refused(let why) = edit.status { reason = .text(why) }
        let status: String = switch edit.status {
        case .pending: "pending"
        case .synced: "synced"
        case .refused: "refused"
        case .undone: "undone"
        }
        return .object([
            "number": .number(Double(edit.sequence)), "edit": .string(edit.kind.rawValue), "layer": .text(edit.layer.title),
            "serviceLayer": .text(edit.layer.serviceLayerURL), "globalId": .text(edit.globalID.isEmpty ? nil : edit.globalID),
            "objectId": edit.objectID.map { .number(Double($0)) } ?? .null, "geometry": edit.geometry ?? .null,
            "attributes": .object(edit.attributes.mapValues(shown)),
            "saved": .string(Format.timestamp(edit.savedAt)), "status": .string(status), "reason": reason,
            "original": edit.original.map { .object($0.mapValues(shown)) } ?? .null,
        ])
    }
}

extension EditSync.ConflictPolicy: ExpressibleByArgument {}
