import ArgumentParser
import Foundation
import MapbookCore
import OfflineLibrary
import ArcGISModel
import LibraryModel

/// `mapbook library`: what is on this device, with no network needed.
struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "List the web map's areas kept in the offline library: downloaded, partly downloaded, or not.",
        discussion: "Reads only the library on disk; works without a network.")

    @OptionGroup var options: LibraryOptions
    @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

    func run() throws {
        let library = options.library
        let records = library.downloadRecords(), partial = library.partialDownloads()
        let catalog: LibraryCatalog?
        do { catalog = try library.loadCatalog(records: records) } catch { throw Output.fail(error, json: json) }
        let areas = catalog?.areas ?? []
        if json {
            try Output.json(Self.report(library: library, catalog: catalog, records: records, partial: partial))
            return
        }
        guard let catalog else {
            Output.line("Nothing is kept for this web map in \(library.root) yet. Try: mapbook download --all")
            return
        }
        let downloaded = areas.filter { records[$0.item.id] != nil }
        Output.line("\(Output.cell(catalog.webMapItem.title, width: 80)) (\(catalog.webMapItem.id)) — \(downloaded.count) of "
                    + "\(areas.count) map area\(areas.count == 1 ? "" : "s") downloaded, "
                    + "\(Format.bytes(downloaded.reduce(0) { $0 + (records[$1.item.id]?.size ?? 0) })) in \(library.directory)")
        if let synced = catalog.syncedAt { Output.line("Last synced with the portal \(Format.timestamp(synced)).") }
        guard !areas.isEmpty else { return }
        Output.line()
        let rows = areas.map { area -> [String] in
            let id = area.item.id
            let state = Self.state(of: id, records: records, partial: partial)
            let size = records[id].map { Format.bytes($0.size) } ?? partial[id].map { "\(Format.bytes($0)) so far" } ?? Format.bytes(area.size)
            let title = Output.cell(area.item.title, width: 32) + (area.onDemand != nil ? " (yours)" : "")
            return [title, state, size, records[id].map { Format.date($0.downloadedAt) } ?? "–", records[id].map { $0.source.kind } ?? "–",
                    id.rawValue]
        }
        let preparing = library.pendingExports().filter { records[$0.areaID] == nil }.map { export in
            [Output.cell(export.spec.name, width: 32) + " (yours)", "preparing", "–", "–", "–", export.areaID.rawValue]
        }
        for line in Output.table(["TITLE", "STATE", "SIZE", "DOWNLOADED", "FROM", "ID"], rows + preparing, rightAligned: [2]) {
            Output.line("  " + line)
        }
        let mirrors = Set(areas.compactMap { records[$0.item.id]?.source.mirror })
        for mirror in mirrors.sorted() { Output.line("  The mirror is \(Output.cell(mirror, width: 200)).") }
        for area in areas {
            if let held = records[area.item.id]?.heldFeatures { Output.line("  \(Output.cell(area.item.title)) holds \(held).") }
        }
        let damaged = library.storedRecords().keys.filter { records[$0] == nil }
        for area in areas where damaged.contains(area.item.id) {
            Output.line()
            Output.line("\(Output.cell(area.item.title)): a package file is missing or changed on this device, so it counts as not "
                        + "downloaded; `mapbook download \(area.item.id)` repairs it.")
        }
    }

    static func state(of id: ItemID, records: [ItemID: DownloadRecord], partial: [ItemID: Int64]) -> String {
        records[id] != nil ? "downloaded" : partial[id] != nil ? "partial" : "not downloaded"
    }

    /// A geodatabase package's layers and their feature counts; null for a tile package.
    private static func heldLayers(_ package: DownloadRecord.Package) -> JSONValue {
        guard let layers = package.layers else { return .null }
        return .array(layers.map { layer -> JSONValue in .object(["title": .text(layer.title), "features": .count(Int64(layer.features))]) })
    }

    /// The JSON of `mapbook library --json` (see docs/cli.md).
    static func report(library: OfflineLibrary, catalog: LibraryCatalog?, records: [ItemID: DownloadRecord],
                       partial: [ItemID: Int64]) -> JSONValue {
        .object([
            "library": .string(library.directory),
            "webMap": catalog.map { .object(["id": .string($0.webMapItem.id.rawValue), "title": .text($0.webMapItem.title)]) } ?? .null,
            "syncedAt": .date(catalog?.syncedAt),
            "mapAreas": .array((catalog?.areas ?? []).map { area in
                let id = area.item.id, record = records[id]
                return .object([
                    "id": .string(id.rawValue),
                    "title": .text(area.item.title),
                    "state": .string(state(of: id, records: records, partial: partial).replacingOccurrences(of: "not downloaded", with: "notDownloaded")),
                    "size": .count(record?.size ?? area.size),
                    "partialBytes": .count(partial[id]),
                    "downloadedAt": .date(record?.downloadedAt),
                    "origin": .string(area.onDemand == nil ? "preplanned" : "yours"),
                    "from": record.map { .string($0.source.kind) } ?? .null,
                    "mirror": .text(record?.source.mirror, width: 400),
                    "onDemand": area.onDemand.map(onDemandJSON) ?? .null,
                    "packages": .array((record?.packages ?? []).map { package in
                        .object(["id": .string(package.id.rawValue), "title": .text(package.title),
                                 "path": .string(library.packagePath(id, package)), "size": .count(package.size),
                                 "verifiedBy": .string(package.verifiedBy), "layers": heldLayers(package),
                                 "mirror": .text(package.mirror, width: 400), "mirrorProblem": .text(package.mirrorProblem, width: 400)])
                    }),
                ])
            }),
            "exportsUnderWay": .array(library.pendingExports().filter { records[$0.areaID] == nil }.map { export in
                .object(["id": .string(export.areaID.rawValue), "title": .text(export.spec.name), "submittedAt": .date(export.submittedAt),
                         "onDemand": onDemandJSON(export.spec)])
            }),
        ])
    }

    /// What an area of the user's own was made of: its extent and detail.
    private static func onDemandJSON(_ spec: OnDemandSpec) -> JSONValue {
        .object(["extent": .extent(spec.extent), "maxLevel": .number(Double(spec.maxLevel)),
                 "detail": spec.detail.map { .string($0.rawValue) } ?? .null, "createdAt": .date(spec.createdAt)])
    }
}
