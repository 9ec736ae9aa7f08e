import ArcGISPortal
import ArgumentParser
import CTerminal
import EventLoop
import Foundation
import Synchronization
import HTTP
import MapRender
import MapbookCore
import OfflineLibrary
import ArcGISModel
import LibraryModel
import MapbookServices

/// `mapbook download`: takes map areas offline into the library.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download map areas into the offline library (resuming any interrupted download).",
        discussion: """
            AREA is a map area's item id or title (or the start of one), or the id of a portal's Mobile Map Package \
            item, which is downloaded into this device's packages (see mapbook packages). An area already downloaded is \
            skipped unless the portal has updated its packages, when it is downloaded again beside the \
            old files and swapped in once verified. Ctrl-C stops, keeping what arrived; run the same \
            command again to resume. With no AREA and no --all, every download an earlier run left part \
            way is resumed. With --json, each event is one JSON object per line (docs/cli.md).
            """)

    @OptionGroup var options: LibraryOptions
    @Argument(help: ArgumentHelp("Map areas to download.", valueName: "AREA")) var areas: [String] = []
    @Flag(help: "Download every downloadable area of the web map.") var all = false
    @Flag(help: "If another mapbook is downloading an area, wait for it instead of failing.") var wait = false
    @Flag(help: "Print JSON lines instead of text.") var json = false

    func validate() throws {
        guard !(all && !areas.isEmpty) else { throw ValidationError("Name the areas to download, or give --all, not both.") }
    }

    func run() async throws {
        let interrupt = InterruptHandler()
        defer { interrupt.cancel() }
        let client = options.selection.client()
        let library = options.library
        // Mobile map package items are downloaded onto the device, not into the web map's library.
        let mirror = options.selection.fleetMirror
        let packageItems = await PackageDownloadRun.packageItems(among: areas, client: client, mirror: mirror)
        var packageFailures: [DownloadFailure] = []
        if !packageItems.isEmpty {
            packageFailures = try await PackageDownloadRun(client: client, root: options.dataDirectory.root, mirror: mirror,
                                                           report: DownloadReport(json: json),
                                                           json: json, waitForLocks: wait, interrupt: interrupt).perform(packageItems)
        }
        let areas = self.areas.filter { name in !packageItems.contains { $0.id.rawValue == name } }
        if !packageItems.isEmpty, areas.isEmpty {
            if packageFailures.isEmpty { return }
            throw packageFailures.allSatisfy(\.isNetworkFailure) ? ExitCode(3) : ExitCode.failure
        }
        let chosen: [MapArea]
        var skipped: [MapArea] = []
        let keptLayers: [WebMapLayer]
        do {
            let catalog = try await library.sync(from: client)
            _ = await library.syncThumbnails(of: [catalog.webMapItem] + catalog.areas.map(\.item), from: client)
            keptLayers = catalog.webMap.keptLayers
            if all {
                chosen = catalog.areas.filter(\.isDownloadable)
                skipped = catalog.areas.filter { !$0.isDownloadable }
            } else if areas.isEmpty {
                let partial = library.partialDownloads()
                chosen = catalog.areas.filter { partial[$0.item.id] != nil }
            } else {
                chosen = try AreaNames.resolve(areas, in: catalog.areas)
            }
        } catch {
            throw Output.fail(error, json: json)
        }
        if chosen.isEmpty, areas.isEmpty, !all, !json {
            Output.line("No download was left part way: nothing to resume. Name the areas to download, or give --all.")
            return
        }
        // Only an area whose record and files are intact counts: a missing or changed file is repaired.
        let records = library.downloadRecords()
        let report = DownloadReport(json: json)
        // Areas --all cannot download (still packaging, failed on the portal, no packages): each
        // named with why, and the command does not end in success.
        for area in skipped { await report.skipped(area) }
        await report.updating(chosen.filter { library.storedRecord($0.item.id) != nil }.map(\.item.id))
        var wanted: [MapArea] = []
        for area in chosen {
            if let record = records[area.item.id], !record.needsUpdate(comparedWith: area) {
                await report.upToDate(area, record: record)
            } else {
                wanted.append(area)
            }
        }
        try await DownloadRun(library: library, client: client, report: report, waitForLocks: wait, interrupt: interrupt,
                              keptLayers: keptLayers)
            .perform(wanted)
        if !skipped.isEmpty || !packageFailures.isEmpty { throw ExitCode.failure }
    }
}

/// Downloads areas through a queue, telling `report` what happens, and ends the command with the
/// documented exit status: 0 only when every area was downloaded and verified, 128+N after signal N
/// (the bytes kept for a resume), 3 when every failure was the network, else 1.
struct DownloadRun {
    let library: OfflineLibrary
    let client: PortalClient
    let report: DownloadReport
    var waitForLocks = false
    let interrupt: InterruptHandler
    /// The web map's operational layers, copied with each area.
    var keptLayers: [WebMapLayer] = []

    func perform(_ areas: [MapArea]) async throws {
        let queue = DownloadQueue(library: library, client: client, waitForLocks: waitForLocks)
        await queue.setKeptLayers(keptLayers)
        interrupt.onInterrupt { await queue.pauseAll() }
        await report.name(areas)
        var pending = Set<ItemID>()
        for area in areas where pending.insert(area.item.id).inserted { await queue.enqueue(area) }
        var failures: [DownloadFailure] = [], unfinished = 0
        if pending.isEmpty { await queue.finish() }
        for await event in queue.events {
            await report.show(event, library: library)
            switch event {
            case .finished(let id, _): pending.remove(id)
            case .cancelled(let id), .paused(let id): pending.remove(id); unfinished += 1
            case .failed(let id, let failure): pending.remove(id); failures.append(failure)
            default: break
            }
            if pending.isEmpty { break }
        }
        await report.end()
        if let number = interrupt.receivedSignal {
            Output.write(Data("mapbook: stopped; run the same command again to resume.\n".utf8), to: STDERR_FILENO)
            throw ExitCode(128 + number)
        }
        if failures.isEmpty, unfinished == 0 { return }
        throw !failures.isEmpty && failures.allSatisfy(\.isNetworkFailure) ? ExitCode(3) : ExitCode.failure
    }
}

/// SIGINT and SIGTERM: before there is anything to save, they end the process at once with
/// 128+N; once `onInterrupt` names how to stop, they run that (downloads pause, keeping their bytes
/// and control files) and the command ends itself with 128+N (see `DownloadRun`).
final class InterruptHandler: Sendable {
    private struct State {
        var stop: (@Sendable () async -> Void)?
        var received: Int32?
    }
    private let state = Mutex(State())
    private static let signals = [SIGINT, SIGTERM]

    init() {
        Signals.route(Self.signals) { [self] number in interrupted(by: number) }
    }

    /// The signal that arrived, if one did.
    var receivedSignal: Int32? { state.withLock { $0.received } }

    func onInterrupt(_ stop: @escaping @Sendable () async -> Void) {
        let already = state.withLock { state -> Bool in
            state.stop = stop
            return state.received != nil
        }
        if already { Task { await stop() } }
    }

    private func interrupted(by number: Int32) {
        let stop = state.withLock { state -> (@Sendable () async -> Void)? in
            if state.received == nil { state.received = number }
            return state.stop
        }
        guard let stop else {
            // Nothing to save yet: end now. Not `exit`, whose atexit handlers and destructors would
            // run while the other threads (libcurl's, the tasks') still use what they tear down — a
            // crash (SIGSEGV) instead of 128+N, seen once in a run of signals at start.
            fflush(nil)
            _exit(128 + number)
        }
        Task { await stop() }
    }

    func cancel() {
        Signals.restoreDefaults(Self.signals)
    }
}

/// How `mapbook download` tells what happens: JSON lines, a live status line on a terminal, or
/// plain lines for a log, from the queue's one stream of events (progress among them).
actor DownloadReport {
    private let json: Bool
    private let live = isatty(STDOUT_FILENO) == 1
    private var latest: [ItemID: (title: String, progress: DownloadProgress)] = [:]
    private var lastJSON: [ItemID: Double] = [:]
    private var titles: [ItemID: String] = [:]
    /// Areas already on this device, being brought up to date: "updated", not "downloaded".
    private var updating: Set<ItemID> = []
    /// Areas whose download ended: a progress snapshot sent just before is not shown after.
    private var ended: Set<ItemID> = []

    init(json: Bool) { self.json = json }

    /// The title a package item is called by in what follows.
    func name(_ id: ItemID, _ title: String) { titles[id] = title }

    /// The titles areas are called by in what follows.
    func name(_ areas: [MapArea]) {
        for area in areas where titles[area.item.id] == nil { titles[area.item.id] = area.item.title }
    }

    private func title(_ id: ItemID) -> String { titles[id] ?? id.rawValue }

    /// These areas have a record on this device: finishing brings them up to date.
    func updating(_ ids: [ItemID]) { updating.formUnion(ids) }

    /// A running download's progress (the queue sends it at most five times a second).
    func show(_ id: ItemID, _ progress: DownloadProgress) {
        guard !ended.contains(id) else { return }
        if json {
            // Scripts get a line a second per area.
            let now = ProcessInfo.processInfo.systemUptime
            guard now - (lastJSON[id] ?? 0) >= 1 else { return }
            lastJSON[id] = now
            Output.jsonLine(["event": .string("progress"), "area": .string(id.rawValue), "bytes": .count(progress.bytes),
                             "total": .count(progress.total),
                             "bytesPerSecond": progress.bytesPerSecond.map { .number($0.rounded()) } ?? .null,
                             "secondsRemaining": progress.secondsRemaining.map { .number($0.rounded()) } ?? .null])
        } else if live {
            latest[id] = (title(id), progress)
            drawStatus()
        }
    }

    func skipped(_ area: MapArea) {
        let reason = NotDownloadableReason(area).map { LibraryError.notDownloadable(title: area.item.title, reason: $0).userSentence }
            ?? "\(area.item.title) cannot be downloaded."
        if json {
            Output.jsonLine(["event": .string("skipped"), "area": .string(area.item.id.rawValue), "title": .text(area.item.title),
                             "message": .text(reason, width: 400)])
        } else {
            say("\(Output.cell(area.item.title)): skipped — \(Output.cell(reason, width: 400))", error: true)
        }
    }

    func upToDate(_ area: MapArea, record: DownloadRecord) {
        if json {
            Output.jsonLine(["event": .string("upToDate"), "area": .string(area.item.id.rawValue), "title": .text(area.item.title),
                  "size": .count(record.size)])
        } else {
            say("\(Output.cell(area.item.title)): already downloaded and up to date (\(Format.bytes(record.size))).")
        }
    }

    func show(_ event: DownloadEvent, library: OfflineLibrary) {
        switch event {
        case .finished(let id, _), .failed(let id, _), .cancelled(let id), .paused(let id): ended.insert(id)
        case .queued(let id), .started(let id, _): ended.remove(id)
        case .progress: break
        }
        switch event {
        case .queued(let id):
            if json { Output.jsonLine(["event": .string("queued"), "area": .string(id.rawValue), "title": .text(title(id))]) }
        case .progress(let id, let progress):
            show(id, progress)
        case .started(let id, let offset):
            if json {
                Output.jsonLine(["event": .string("started"), "area": .string(id.rawValue), "resumedFrom": .count(offset)])
            } else if offset > 0 {
                say("\(Output.cell(title(id))): resuming after \(Format.bytes(offset)).")
            }
        case .finished(let id, let record):
            latest[id] = nil
            let mirrorProblems = record.packages.compactMap { package in package.mirrorProblem.map { "\(package.title): \($0)" } }
            if json {
                Output.jsonLine(["event": .string("downloaded"), "area": .string(id.rawValue), "title": .text(title(id)),
                      "updated": .bool(updating.contains(id)),
                      "size": .count(record.size), "path": .string(library.packagesDirectory(id)),
                      "verifiedBy": .string(record.packages.map(\.verifiedBy).joined(separator: ", ")),
                      "drawProblem": .text(record.drawProblem, width: 300), "from": .string(record.source.label),
                      "mirrorProblems": .array(mirrorProblems.map { .text($0, width: 400) })])
            } else {
                for problem in mirrorProblems { say("\(Output.cell(title(id))): \(Output.cell(problem, width: 400)); it came from the portal instead.", error: true) }
                let drawing = record.drawProblem.map { "; it cannot be drawn: \(Output.cell($0, width: 300))" } ?? ""
                let source = record.source == .portal ? "" : " from \(Output.cell(record.source.label, width: 200))"
                say("\(Output.cell(title(id))): \(updating.contains(id) ? "updated" : "downloaded") \(Format.bytes(record.size))\(source), verified (\(record.packages.map(\.verifiedBy).joined(separator: ", ")))\(drawing).")
            }
        case .failed(let id, let failure):
            latest[id] = nil
            if json {
                Output.jsonLine(["event": .string("failed"), "area": .string(id.rawValue), "title": .text(title(id)),
                      "message": .string(failure.sentence), "unreachable": .bool(failure.isNetworkFailure)])
            } else {
                say("\(Output.cell(title(id))): failed. \(failure.sentence)", error: true)
            }
        case .cancelled(let id), .paused(let id):
            latest[id] = nil
            if json { Output.jsonLine(["event": .string("stopped"), "area": .string(id.rawValue)]) }
        }
    }

    func end() { clearStatus() }

    /// Lines of the live block now on screen, the cursor on the last of them.
    private var drawnLines = 0

    /// A line per running area, rewritten in place: concurrent downloads never share a line.
    private func drawStatus() {
        clearStatus()
        let width = max(Int(TerminalSize.columns()) - 1, 20)
        let lines = latest.values.sorted { $0.title < $1.title }.map { $0.progress.line(title: $0.title, width: width) }
        Output.write(Data(lines.joined(separator: "\n").utf8))
        drawnLines = lines.count
    }

    /// Takes the live block off the screen, leaving the cursor where it began.
    private func clearStatus() {
        guard live, !json, drawnLines > 0 else { return }
        Output.write(Data(("\r" + (drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)A" : "") + "\u{1B}[J").utf8))
        drawnLines = 0
    }

    private func say(_ text: String, error: Bool = false) {
        clearStatus()
        Output.write(Data((text + "\n").utf8), to: error ? STDERR_FILENO : STDOUT_FILENO)
        if live, !json, !latest.isEmpty { drawStatus() }
    }

}

enum TerminalSize {
    static func columns() -> Int32 {
        var rows: Int32 = 0, columns: Int32 = 0
        return mb_terminal_size(STDOUT_FILENO, &rows, &columns) == 0 && columns > 0 ? columns : 80
    }
}
