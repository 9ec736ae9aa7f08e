import ArcGISModel
import ArcGISPortal
import ArgumentParser
import Foundation
import HTTP
import LibraryModel
import MapbookCore
import MobilePackages
import OfflineLibrary

/// `mapbook download ITEM` for a portal's "Mobile Map Package" items: each downloaded in turn into
/// this device's packages (resuming an earlier try), told as `download` tells areas — a live line
/// on a terminal, JSON lines with `--json` — with the same exit statuses.
struct PackageDownloadRun {
    let client: PortalClient
    let root: String
    /// The fleet mirror packages come from when it holds them.
    var mirror: Mirror?
    let report: DownloadReport
    let json: Bool
    var waitForLocks = false
    let interrupt: InterruptHandler

    /// The arguments that name mobile map package items, asked of the portal, or of the fleet mirror
    /// when the portal cannot be reached (ids only: titles name areas).
    static func packageItems(among names: [String], client: PortalClient, mirror: Mirror?) async -> [PortalItem] {
        var found: [PortalItem] = []
        for name in names {
            guard let id = ItemID(name), let item = try? await PortalPackageDownload.item(id, client: client, mirror: mirror),
                  item.type == PortalItem.mobileMapPackageType else { continue }
            found.append(item)
        }
        return found
    }

    /// Returns the failures; a signal ends the command here with 128+N.
    func perform(_ items: [PortalItem]) async throws -> [DownloadFailure] {
        var failures: [DownloadFailure] = []
        for item in items {
            let download = PortalPackageDownload(item: item, libraryRoot: root, client: client, mirror: mirror)
            let title = Output.cell(item.title)
            if let entry = download.currentCopy {
                if json {
                    Output.jsonLine(["event": .string("upToDate"), "package": .string(item.id.rawValue), "title": .text(item.title),
                                     "size": .count(entry.size), "path": .string(entry.path)])
                } else {
                    Output.line("\(title): already downloaded and up to date (\(Format.bytes(entry.size))).")
                }
                continue
            }
            await report.name(item.id, item.title)
            // The transfer thread only notes the bytes; the line is redrawn a few times a second.
            let latest = LatestProgress()
            let ticker = Task { [report] in
                while (try? await Task.sleep(for: .milliseconds(200))) != nil {
                    if let progress = latest.current { await report.show(item.id, progress) }
                }
            }
            defer { ticker.cancel() }
            let task = Task {
                try await download.run(started: { offset in
                    if json { Output.jsonLine(["event": .string("started"), "package": .string(item.id.rawValue), "resumedFrom": .count(offset)]) }
                    else if offset > 0 { Output.line("\(title): resuming after \(Format.bytes(offset)).") }
                }, report: latest.note)
            }
            interrupt.onInterrupt { task.cancel() }
            do {
                let entry = try await task.value
                ticker.cancel()
                await report.end()
                let source = entry.origin?.mirror.map { DownloadRecord.Source.mirror($0) } ?? .portal
                let verifiedBy = entry.origin?.verifiedBy ?? "zip CRC-32"
                if json {
                    Output.jsonLine(["event": .string("downloaded"), "package": .string(item.id.rawValue), "title": .text(item.title),
                                     "size": .count(entry.size), "path": .string(entry.path), "verifiedBy": .string(verifiedBy),
                                     "from": .string(source.label),
                                     "mirrorProblems": .array((entry.origin?.mirrorProblem).map { [.text($0, width: 400)] } ?? [])])
                } else {
                    if let problem = entry.origin?.mirrorProblem { Output.standardError("\(title): \(Output.cell(problem, width: 400)); it came from the portal instead.") }
                    let from = source == .portal ? "" : " from \(Output.cell(source.label, width: 200))"
                    Output.line("\(title): downloaded \(Format.bytes(entry.size))\(from), verified (\(verifiedBy)), into \(Output.cell(entry.path, width: 400)).")
                }
            } catch {
                ticker.cancel()
                await report.end()
                if let number = interrupt.receivedSignal {
                    Output.standardError("mapbook: stopped; run the same command again to resume.")
                    throw ExitCode(128 + number)
                }
                let failure = DownloadFailure(error)
                failures.append(failure)
                if json {
                    Output.jsonLine(["event": .string("failed"), "package": .string(item.id.rawValue), "title": .text(item.title),
                                     "message": .string(failure.sentence), "unreachable": .bool(failure.isNetworkFailure)])
                } else {
                    Output.standardError("\(title): failed. \(failure.sentence)")
                }
            }
        }
        return failures
    }
}
