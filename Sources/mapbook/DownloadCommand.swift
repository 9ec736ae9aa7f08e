import ArcGISPortal
import ArgumentParser
import CCurses
import Foundation
import HTTP
import MapRender
import MapbookCore
import OfflineLibrary

/// `mapbook download`: takes map areas offline into the library.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download map areas into the offline library (resuming any interrupted download).",
        discussion: """
            AREA is a map area's item id or title (or the start of one). An area already downloaded is \
            skipped unless the portal has updated its packages, when it is downloaded again beside the \
            old files and swapped in once verified. Ctrl-C stops, keeping what arrived; run the same \
            command again to resume. With --json, each event is one JSON object per line (docs/cli.md).
            """)

    @OptionGroup var options: LibraryOptions
    @Argument(help: ArgumentHelp("Map areas to download.", valueName: "AREA")) var areas: [String] = []
    @Flag(help: "Download every downloadable area of the web map.") var all = false
    @Flag(help: "Print JSON lines instead of text.") var json = false

    func validate() throws {
        guard all != !areas.isEmpty else { throw ValidationError("Name the areas to download, or give --all.") }
    }

    func run() async throws {
        let client = options.selection.client()
        let library = options.library
        let chosen: [MapArea]
        do {
            let catalog = try await library.sync(from: client)
            _ = await library.syncThumbnails(of: [catalog.webMapItem] + catalog.areas.map(\.item), from: client)
            chosen = all ? catalog.areas.filter(\.status.isDownloadable) : try AreaNames.resolve(areas, in: catalog.areas)
        } catch {
            throw Output.fail(error, json: json)
        }
        let report = DownloadReport(json: json)
        let records = library.downloadRecords()
        let queue = DownloadQueue(library: library, client: client)
        var pending = Set<ItemID>()
        for area in chosen {
            if let record = records[area.item.id], !record.needsUpdate(comparedWith: area) {
                report.upToDate(area, record: record)
                continue
            }
            pending.insert(area.item.id)
            await queue.enqueue(area)
        }
        let interrupt = InterruptHandler { await queue.pauseAll() }
        defer { interrupt.cancel() }
        var failures: [DownloadFailure] = []
        let titles = Dictionary(chosen.map { ($0.item.id, $0.item.title) }, uniquingKeysWith: { first, _ in first })
        if pending.isEmpty { await queue.finish() }
        for await event in queue.events {
            report.show(event, title: { titles[$0] ?? $0.rawValue }, library: library)
            switch event {
            case .finished(let id, _), .cancelled(let id), .paused(let id): pending.remove(id)
            case .failed(let id, let failure): pending.remove(id); failures.append(failure)
            default: break
            }
            if pending.isEmpty { break }
        }
        report.end()
        if failures.isEmpty { return }
        throw failures.allSatisfy(\.isUnreachable) ? ExitCode(3) : ExitCode.failure
    }
}

/// Stops the downloads on Ctrl-C or SIGTERM, so partial files and their control files are saved,
/// then exits with the status the signal implies.
final class InterruptHandler: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []

    init(_ stop: @escaping @Sendable () async -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                Task {
                    await stop()
                    Output.write(Data("\nmapbook: stopped; run the same command again to resume.\n".utf8), to: STDERR_FILENO)
                    exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// How `mapbook download` tells what happens: JSON lines, a live status line on a terminal, or
/// plain lines for a log.
final class DownloadReport {
    private let json: Bool
    private let live = isatty(STDOUT_FILENO) == 1
    private var latest: [ItemID: (title: String, progress: DownloadProgress)] = [:]
    private var lastDraw = 0.0
    private var lastJSON: [ItemID: Double] = [:]

    init(json: Bool) { self.json = json }

    func upToDate(_ area: MapArea, record: DownloadRecord) {
        if json {
            line(["event": .string("upToDate"), "area": .string(area.item.id.rawValue), "title": .text(area.item.title),
                  "size": .count(record.size)])
        } else {
            say("\(Output.cell(area.item.title)): already downloaded and up to date (\(Format.bytes(record.size))).")
        }
    }

    func show(_ event: DownloadEvent, title: (ItemID) -> String, library: OfflineLibrary) {
        let now = ProcessInfo.processInfo.systemUptime
        switch event {
        case .queued(let id):
            if json { line(["event": .string("queued"), "area": .string(id.rawValue), "title": .text(title(id))]) }
        case .started(let id, let offset):
            if json {
                line(["event": .string("started"), "area": .string(id.rawValue), "resumedFrom": .count(offset)])
            } else if offset > 0 {
                say("\(Output.cell(title(id))): resuming after \(Format.bytes(offset)).")
            }
        case .progress(let id, let progress):
            if json {
                // Scripts get a line a second per area, plus the last one.
                guard now - (lastJSON[id] ?? 0) >= 1 else { return }
                lastJSON[id] = now
                line(["event": .string("progress"), "area": .string(id.rawValue), "bytes": .count(progress.bytes),
                      "total": .count(progress.total), "bytesPerSecond": progress.bytesPerSecond.map { .number($0.rounded()) } ?? .null,
                      "secondsRemaining": progress.secondsRemaining.map { .number($0.rounded()) } ?? .null])
            } else if live {
                latest[id] = (title(id), progress)
                if now - lastDraw >= 0.1 { lastDraw = now; drawStatus() }
            }
        case .finished(let id, let record):
            latest[id] = nil
            if json {
                line(["event": .string("downloaded"), "area": .string(id.rawValue), "title": .text(title(id)),
                      "size": .count(record.size), "path": .string(library.packagesDirectory(id)),
                      "verifiedBy": .string(record.packages.map(\.verifiedBy).joined(separator: ", "))])
            } else {
                say("\(Output.cell(title(id))): downloaded \(Format.bytes(record.size)), verified (\(record.packages.map(\.verifiedBy).joined(separator: ", "))).")
            }
        case .failed(let id, let failure):
            latest[id] = nil
            if json {
                line(["event": .string("failed"), "area": .string(id.rawValue), "title": .text(title(id)),
                      "message": .string(failure.sentence), "unreachable": .bool(failure.isUnreachable)])
            } else {
                say("\(Output.cell(title(id))): failed. \(failure.sentence)", error: true)
            }
        case .cancelled(let id), .paused(let id):
            latest[id] = nil
            if json { line(["event": .string("stopped"), "area": .string(id.rawValue)]) }
        }
    }

    func end() { if live, !json { Output.write(Data("\r\u{1B}[K".utf8)) } }

    /// One line, rewritten in place, with every running area's bar.
    private func drawStatus() {
        let width = max(Int(TerminalSize.columns()) - 1, 20)
        let text = latest.values.sorted { $0.title < $1.title }.map { entry in
            let p = entry.progress
            return "\(Output.cell(entry.title, width: 24)) \(ProgressText.bar(fraction: p.fraction, width: 12, ascii: false)) "
                + ProgressText.figures(bytes: p.bytes, total: p.total, bytesPerSecond: p.bytesPerSecond)
        }.joined(separator: " · ")
        Output.write(Data(("\r\u{1B}[K" + String(text.prefix(width))).utf8))
    }

    private func say(_ text: String, error: Bool = false) {
        if live, !json { Output.write(Data("\r\u{1B}[K".utf8)) }
        Output.write(Data((text + "\n").utf8), to: error ? STDERR_FILENO : STDOUT_FILENO)
        if live, !json, !latest.isEmpty { drawStatus() }
    }

    private func line(_ fields: [String: JSONValue]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(JSONValue.object(fields)) else { return }
        Output.write(data + Data("\n".utf8))
    }
}

enum TerminalSize {
    static func columns() -> Int32 {
        var rows: Int32 = 0, columns: Int32 = 0
        return mb_terminal_size(STDOUT_FILENO, &rows, &columns) == 0 && columns > 0 ? columns : 80
    }
}
