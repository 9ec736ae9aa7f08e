import ArcGISModel
import ArcGISPortal
import Editing
import Foundation
import MapbookCore
import OfflineLibrary

/// What one area's sync did with each change: kept for the report that `edits sync` prints (and
/// the browser shows), every change named, none left out.
public struct SyncReport: Sendable {
    public struct Entry: Sendable {
        public var change: PendingChange
        public var outcome: EditSync.Outcome

        /// Refused by the server, or held for the user's decision (a conflict): it waits, marked.
        public var isRefused: Bool {
            switch outcome {
            case .refused, .conflict: true
            default: false
            }
        }

        /// Why it was refused or held, when it was.
        public var refusal: String? {
            switch outcome {
            case .refused(let why): why
            case .conflict(let fields): EditSync.sentence(fields)
            default: nil
            }
        }
    }

    /// A file attached here, and what became of it.
    public struct AttachmentEntry: Sendable {
        public var attachment: FeatureAttachment
        public var outcome: EditSync.Outcome
    }


    public var areaTitle: String
    public var entries: [Entry]
    public var attachments: [AttachmentEntry] = []
    /// Nothing was sent: a dry run says what would be.
    public var dryRun: Bool
    /// What came down from the server into the area afterwards, or why nothing did; nil when not tried.
    public var serverChanges: String?

    /// Changes and attachments together.
    public var total: Int { entries.count + attachments.count }
    public var done: Int { entries.filter(\.outcome.isDone).count + attachments.filter(\.outcome.isDone).count }
    public var refused: Int { entries.filter(\.isRefused).count + attachments.filter { if case .refused = $0.outcome { true } else { false } }.count }
    /// Still waiting: not sent, not answered, or (a dry run) to be sent.
    public var waiting: Int { total - done - refused }
}

/// Sends an area's unsynced edits to their feature services (`applyEdits` with GlobalIDs) and
/// writes what became of each to the journal: synced, refused with the server's reason, or left
/// waiting. Nothing is marked synced that the server did not take, so a sync cut off at any point
/// is run again safely: an add the server took but whose answer was lost is found there by its
/// GlobalID and not sent twice.
public struct EditSyncer {
    public let client: PortalClient
    /// What to do with a change the server made too (`--prefer`); held for the user by default.
    public let conflicts: EditSync.ConflictPolicy
    /// Changes sent in one request at most: a thousand edits go in a few bounded requests.
    public static let changesPerRequest = 250

    public init(client: PortalClient, conflicts: EditSync.ConflictPolicy = .ask) { self.client = client; self.conflicts = conflicts }

    public func sync(_ journal: EditJournal, areaTitle: String, dryRun: Bool = false) async throws -> SyncReport {
        let changes = PendingChange.of(try journal.unsynced())
        var outcomes = [EditSync.Outcome?](repeating: nil, count: changes.count)
        var byService: [String: [(index: Int, target: EditSync.Target)]] = [:], services: [String] = []
        for (index, change) in changes.enumerated() {
            guard let target = EditSync.target(of: change.layer) else {
                outcomes[index] = .waiting("Its layer names no feature service in the area's copy, so it cannot be synced; export it with `mapbook edits export`.")
                continue
            }
            if byService[target.serviceURL] == nil { services.append(target.serviceURL) }
            byService[target.serviceURL, default: []].append((index, target))
        }
        for service in services {
            let sent = await sync(byService[service]!, of: changes, service: service, dryRun: dryRun)
            for (index, outcome) in sent { outcomes[index] = outcome }
        }
        let entries = zip(changes, outcomes).map { SyncReport.Entry(change: $0, outcome: $1 ?? .waiting("It was not sent.")) }
        if !dryRun {
            var synced: [Int64] = [], refused: [(sequence: Int64, reason: String)] = []
            for entry in entries {
                switch entry.outcome {
                case .added, .updated, .deleted, .alreadyThere, .tookTheirs: synced += entry.change.sequences
                case .refused(let reason): refused += entry.change.sequences.map { ($0, reason) }
                case .conflict(let fields): refused += entry.change.sequences.map { ($0, EditSync.sentence(fields)) }
                case .waiting, .wouldBeSent: break
                }
            }
            try journal.record(synced: synced, refused: refused)
        }
        var report = SyncReport(areaTitle: areaTitle, entries: entries, dryRun: dryRun)
        report.attachments = try await syncAttachments(journal, dryRun: dryRun)
        return report
    }

    /// The files attached here, once their features are on the server: each looked for among the
    /// feature's attachments there (by name and size: one sent before whose answer was lost is not
    /// sent again), else sent by `addAttachment`; the outcomes recorded in one transaction.
    private func syncAttachments(_ journal: EditJournal, dryRun: Bool) async throws -> [SyncReport.AttachmentEntry] {
        let waiting = try journal.unsyncedAttachments()
        guard !waiting.isEmpty else { return [] }
        let folder = (journal.path as NSString).deletingLastPathComponent + "/" + KeptFile.folder
        var outcomes: [Int64: EditSync.Outcome] = [:]
        var byLayer: [EditSync.Target: [FeatureAttachment]] = [:]
        for attachment in waiting {
            guard let target = EditSync.target(of: attachment.layer) else {
                outcomes[attachment.id] = .waiting("Its layer names no feature service in the area's copy, so it cannot be synced.")
                continue
            }
            byLayer[target, default: []].append(attachment)
        }
        for (target, attachments) in byLayer {
            guard let layerURL = URL(string: target.layerURL) else { continue }
            do {
                let info = try await client.editableLayer(layerURL)
                guard let field = info.globalIDField else {
                    for attachment in attachments { outcomes[attachment.id] = .waiting("\(info.name) on its service has no GlobalIDs to find the feature by.") }
                    continue
                }
                let held = try await client.heldFeatures(Array(Set(attachments.map(\.featureGlobalID))), layer: layerURL, field: field)
                var listed: [Int64: [AttachmentInfo]] = [:]
                for attachment in attachments {
                    guard let objectID = held[attachment.featureGlobalID.uppercased()]?[info.objectIDField]?.int64 else {
                        outcomes[attachment.id] = .waiting("Its feature is not on the server yet.")
                        continue
                    }
                    if listed[objectID] == nil { listed[objectID] = try await client.attachmentInfos(layer: layerURL, objectID: objectID) }
                    if listed[objectID]!.contains(where: { $0.name == attachment.name && $0.size == attachment.size }) {
                        outcomes[attachment.id] = .alreadyThere
                        continue
                    }
                    if dryRun { outcomes[attachment.id] = .wouldBeSent; continue }
                    guard let data = FileManager.default.contents(atPath: folder + "/" + attachment.file), Int64(data.count) == attachment.size else {
                        outcomes[attachment.id] = .refused("The copy kept on this device (\(attachment.file)) is missing or changed; attach the file again.")
                        continue
                    }
                    switch try await client.addAttachment(layer: layerURL, objectID: objectID, name: attachment.name,
                                                          contentType: attachment.contentType, data: data) {
                    case .success(let id): outcomes[attachment.id] = .added(objectID: id)
                    case .failure(let refusal): outcomes[attachment.id] = .refused(refusal.userMessage)
                    }
                }
            } catch {
                for attachment in attachments where outcomes[attachment.id] == nil { outcomes[attachment.id] = .waiting(error.userSentence) }
            }
        }
        let entries = waiting.map { SyncReport.AttachmentEntry(attachment: $0, outcome: outcomes[$0.id] ?? .waiting("It was not sent.")) }
        if !dryRun {
            try journal.recordAttachments(synced: entries.filter(\.outcome.isDone).map(\.attachment.id),
                                          refused: entries.compactMap { entry in
                                              if case .refused(let why) = entry.outcome { (entry.attachment.id, why) } else { nil }
                                          })
        }
        return entries
    }

    /// A downloaded area's sync as the browser and `edits sync` run it: its journal's edits sent,
    /// then — when nothing is left waiting — the server's changes brought down: through the area's
    /// replica (`AreaReplicaRefresh`), else into its copies of its layers (`AreaCopiesRefresh`).
    /// An area removed from the device keeps its journal: its edits are sent all the same.
    public func sync(area id: ItemID, title: String, library: OfflineLibrary, dryRun: Bool = false) async throws -> SyncReport {
        let journal = try EditJournal(areaFolder: library.areaDirectory(id))
        var report = try await sync(journal, areaTitle: title, dryRun: dryRun)
        let records = library.downloadRecords()
        guard !dryRun, report.waiting == 0, let area = records[id]?.area else { return report }
        let layers = ((try? library.loadCatalog(records: records)) ?? nil)?.webMap.flatOperationalLayers ?? []
        if let sentence = await AreaReplicaRefresh.refresh(area: id, webMapLayers: layers, library: library, client: client, journal: journal) {
            report.serverChanges = sentence
        } else if library.hasFeatureCopies(id), let extent = area.extent {
            report.serverChanges = await AreaCopiesRefresh.refresh(area: id, extent: extent, webMapLayers: layers, library: library,
                                                                   client: client, journal: journal)
        }
        return report
    }

    /// One service's changes: each layer asked about editing and about the adds it already holds,
    /// then the rest sent in bounded requests.
    private func sync(_ items: [(index: Int, target: EditSync.Target)], of changes: [PendingChange], service: String,
                      dryRun: Bool) async -> [Int: EditSync.Outcome] {
        var outcomes: [Int: EditSync.Outcome] = [:]
        guard let serviceURL = URL(string: service) else { return outcomes }
        var fields: [Int: String] = [:]
        var toSend: [(index: Int, layerID: Int)] = []
        var sending = changes
        for layerID in Set(items.map(\.target.layerID)).sorted() {
            let own = items.filter { $0.target.layerID == layerID }
            let layerURL = serviceURL.appendingPathComponent(String(layerID))
            do {
                let info = try await client.editableLayer(layerURL)
                guard let field = info.globalIDField else {
                    for item in own { outcomes[item.index] = .waiting("\(info.name) on its service has no GlobalIDs, which mapbook needs to send an edit exactly once.") }
                    continue
                }
                fields[layerID] = field
                // The adds the layer holds already, and the server's values of the features changed here.
                let asked = own.filter { changes[$0.index].kind == .add || !changes[$0.index].original.isEmpty }
                let server = try await client.heldFeatures(asked.map { changes[$0.index].globalID }, layer: layerURL, field: field)
                for item in own {
                    let change = changes[item.index]
                    let clashes = server[change.globalID.uppercased()].map { EditSync.conflicts(of: change, server: $0) } ?? []
                    if change.kind == .add, server[change.globalID.uppercased()] != nil {
                        outcomes[item.index] = .alreadyThere
                    } else if !clashes.isEmpty, conflicts != .mine {
                        guard conflicts == .theirs else { outcomes[item.index] = .conflict(clashes); continue }
                        // The server's values kept: only the fields not in conflict go.
                        for clash in clashes { sending[item.index].attributes[clash.field] = nil }
                        if sending[item.index].attributes.isEmpty, sending[item.index].geometry == nil {
                            outcomes[item.index] = .tookTheirs
                        } else {
                            toSend.append((item.index, layerID))
                        }
                    } else if let refusal = info.capabilities.refusal(of: change.kind.capability, layer: info.name) {
                        outcomes[item.index] = .refused(refusal)
                    } else if change.globalID.isEmpty {
                        outcomes[item.index] = .waiting("The area's copy of this feature has no GlobalID; download the area again to sync it.")
                    } else {
                        toSend.append((item.index, layerID))
                    }
                }
            } catch {
                for item in own { outcomes[item.index] = .waiting(error.userSentence) }
            }
        }
        if dryRun {
            for item in toSend { outcomes[item.index] = .wouldBeSent }
            return outcomes
        }
        for start in stride(from: 0, to: toSend.count, by: Self.changesPerRequest) {
            let batch = Array(toSend[start..<min(start + Self.changesPerRequest, toSend.count)])
            let sent = batch.map { (layerID: $0.layerID, change: sending[$0.index]) }
            do {
                let answer = try await client.applyEdits(service: serviceURL, edits: EditSync.editsParameter(sent, globalIDFields: fields))
                var results = EditSync.outcomes(of: answer, for: sent)
                try await settleRefusals(&results, sent, serviceURL: serviceURL, fields: fields)
                for (item, outcome) in zip(batch, results) { outcomes[item.index] = outcome }
            } catch {
                // Not known to have landed: it waits, and the next sync finds any add that did.
                for item in batch { outcomes[item.index] = .waiting(error.userSentence) }
            }
        }
        return outcomes
    }

    /// Refused adds and deletions looked for on the server: an add already there (sent before,
    /// its answer lost, or sent by another process at once) is done, as is deleting a feature gone.
    private func settleRefusals(_ results: inout [EditSync.Outcome], _ sent: [(layerID: Int, change: PendingChange)], serviceURL: URL,
                                fields: [Int: String]) async throws {
        let doubtful = sent.indices.filter { index in
            guard case .refused = results[index] else { return false }
            return sent[index].change.kind != .update
        }
        for layerID in Set(doubtful.map { sent[$0].layerID }) {
            let own = doubtful.filter { sent[$0].layerID == layerID }
            let held = try await client.heldGlobalIDs(own.map { sent[$0].change.globalID }, layer: serviceURL.appendingPathComponent(String(layerID)),
                                                      field: fields[layerID] ?? "GlobalID")
            for index in own {
                results[index] = EditSync.settle(results[index], of: sent[index].change, heldByServer: held.contains(sent[index].change.globalID.uppercased()))
            }
        }
    }
}

extension PendingChange.Kind {
    /// The capability a service layer needs to take this change.
    var capability: EditCapabilities.Edit {
        switch self {
        case .add: .add
        case .update: .update
        case .delete: .delete
        }
    }
}

/// A sync's report as lines, one a change or file — what `mapbook edits sync` prints and the
/// area's details keep — every string from the journal or the server sanitized.
extension SyncReport.Entry {
    /// `added:   add Places {…} (edit 3) as object id 12`.
    public var line: String {
        func cell(_ text: String, _ width: Int) -> String { TerminalText.sanitizedLine(text, maxLength: width) }
        let which = change.objectID.map { String($0) } ?? cell(change.globalID, 40)
        let edits = "(edit\(change.sequences.count == 1 ? "" : "s") \(change.sequences.map(String.init).joined(separator: ", ")))"
        let head = "\(change.kind.rawValue) \(cell(change.layer.title, 40)) \(which) \(edits)"
        switch outcome {
        case .added(let objectID): return "added:   \(head)" + (objectID.map { " as object id \($0)" } ?? "")
        case .updated, .deleted: return "synced:  \(head)"
        case .alreadyThere: return "synced:  \(head), already on the server"
        case .refused(let reason): return "REFUSED: \(head): \(cell(reason, 300))"
        case .waiting(let reason): return "waiting: \(head): \(cell(reason, 300))"
        case .wouldBeSent: return "to send: \(head)"
        case .conflict(let fields): return "CONFLICT: \(head): \(EditSync.sentence(fields))"
        case .tookTheirs: return "kept the server's: \(head)"
        }
    }
}

extension SyncReport.AttachmentEntry {
    /// `added:   attachment photo.jpg (3.1 MiB) to Places {…} as attachment 4`.
    public var line: String {
        func cell(_ text: String, _ width: Int) -> String { TerminalText.sanitizedLine(text, maxLength: width) }
        let head = "attachment \(cell(attachment.name, 60)) (\(Format.bytes(attachment.size))) to \(cell(attachment.layer.title, 40)) \(cell(attachment.featureGlobalID, 40))"
        switch outcome {
        case .added(let id): return "added:   \(head)" + (id.map { " as attachment \($0)" } ?? "")
        case .alreadyThere, .updated, .deleted, .tookTheirs: return "synced:  \(head), already on the server"
        case .refused(let reason): return "REFUSED: \(head): \(cell(reason, 300))"
        case .waiting(let reason): return "waiting: \(head): \(cell(reason, 300))"
        case .wouldBeSent: return "to send: \(head)"
        case .conflict(let fields): return "CONFLICT: \(head): \(EditSync.sentence(fields))"
        }
    }
}
