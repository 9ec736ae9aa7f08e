import ArcGISModel
import ArcGISPortal
import Foundation
import HTTP
import LibraryModel
import MapbookCore
import MobilePackages

/// `mapbook stage`: writes a web map and its areas, or a mobile map package item, into a fleet
/// mirror — a folder of plain files,
/// laid out by the REST paths they answer (`MirrorLayout`), that nginx or an object store serves
/// to every device — with `mirror.json` listing each file's size and SHA-256.
///
/// JSON answers are fetched again each run (they are small, and say what changed); a package is
/// fetched only when the portal lists a version (`modified`, size) the mirror does not hold, into
/// `.stage/` with a control file (a run that stops resumes), checked by its own checksums, hashed,
/// and renamed into place. `mirror.json` is rewritten after every package, so it never names a
/// file that is not whole, and a run that stops keeps what it finished. Files the web map no
/// longer needs are deleted last. A token never reaches the folder: answers holding it are refused.
public struct MirrorStage: Sendable {
    public enum Areas: Sendable {
        case all
        /// Chooses among the web map's areas (names resolved by the caller); throws to refuse.
        case chosen(@Sendable ([MapArea]) throws -> [MapArea])
    }

    /// What is staged: a web map's areas, or a portal item of type Mobile Map Package.
    public enum Content: Sendable {
        case webMap(ItemID, Areas)
        case mobileMapPackage(ItemID)
    }

    /// What a run did, told as it happens.
    public enum Event: Sendable {
        /// The catalogue was read: this many areas and packages, of this many bytes, will be staged.
        case planned(title: String, areas: Int, packages: Int, bytes: Int64)
        /// A package is being fetched; then its bytes so far, from the HTTP thread.
        case fetching(package: ItemID, title: String, size: Int64?)
        case progress(package: ItemID, bytes: Int64, total: Int64?)
        /// A package is in place: fetched now (`fetched`), or the mirror already held this version.
        case staged(package: ItemID, title: String, file: MirrorFile, fetched: Bool)
        /// Files the portal no longer lists, deleted.
        case removed(paths: [String])
    }

    public let client: PortalClient
    public let directory: String
    public let content: Content
    /// Stage content that is not public (the mirror then serves it to anyone who reaches it).
    public let includePrivate: Bool
    let http: HTTPClient

    public init(client: PortalClient, directory: String, content: Content, includePrivate: Bool, http: HTTPClient = HTTPClient()) {
        var directory = directory
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        self.client = client; self.directory = directory; self.content = content
        self.includePrivate = includePrivate; self.http = http
    }

    var indexPath: String { directory + "/" + MirrorLayout.index }
    /// Where packages arrive before they are checked and put in place.
    private static let work = ".stage"

    /// The mirror's index as it is on disk; nil for a folder never staged into. Throws when it is
    /// not one `mapbook stage` wrote (a link or anything but a plain file is not one).
    public func currentIndex() throws(MirrorStageError) -> MirrorIndex? {
        var info = stat()
        guard lstat(indexPath, &info) == 0 else { return nil }
        guard let file = try? ReadableFile(path: indexPath, followingLinks: false), file.size <= 256 << 20,
              let index = try? JSONTreeDecoder.decode(MirrorIndex.self, from: file.read(at: 0, upTo: Int(file.size))) else {
            throw .notAMirror(directory: directory)
        }
        return index
    }

    /// Stages the web map; returns the index written. Throws `PortalError`, `HTTPError` or
    /// `LibraryError` — after which running again picks up where this run stopped.
    @discardableResult
    public func run(_ report: @escaping @Sendable (Event) -> Void = { _ in }) async throws -> MirrorIndex {
        // Everything below the folder is written from its own descriptor, never through a link.
        let folder = try ConfinedFolder(directory)
        // One stage at a time per folder (`.lock`, as an area's).
        let lock: AreaLock
        do {
            lock = try await AreaLock.acquire(areaDirectory: directory, title: directory, wait: false)
        } catch LibraryError.busy(_, let pid) {
            throw MirrorStageError.busy(directory: directory, pid: pid)
        }
        defer { withExtendedLifetime(lock) {} }
        var index = try currentIndex() ?? MirrorIndex(portal: client.portalURL.absoluteString)
        guard index.portal == client.portalURL.absoluteString else {
            throw MirrorStageError.otherPortal(directory: directory, portal: index.portal)
        }
        switch content {
        case .webMap(let id, let areas): try await stageWebMap(id, areas, into: &index, in: folder, report)
        case .mobileMapPackage(let id): try await stageMobileMapPackage(id, into: &index, in: folder, report)
        }
        report(.removed(paths: removeUnlisted(by: index, in: folder)))
        return index
    }

    private func stageWebMap(_ webMapID: ItemID, _ areas: Areas, into index: inout MirrorIndex, in folder: ConfinedFolder,
                             _ report: @escaping @Sendable (Event) -> Void) async throws {
        // Read everything first: nothing is written for a web map that cannot be staged whole.
        let catalogue = try await read(webMapID, areas)
        let packages = catalogue.areas.flatMap(\.packages)
        report(.planned(title: catalogue.webMapItem.title, areas: catalogue.areas.count, packages: packages.count,
                        bytes: packages.compactMap(\.size).reduce(0, +)))
        if catalogue.holdsPrivate { index.includesPrivate = true }

        let earlier = index.webMap(webMapID)?.files ?? []
        var staged = StagedWebMap(id: webMapID, title: catalogue.webMapItem.title, stagedAt: Date(),
                                  areas: catalogue.areas.map(\.item.id), files: [])
        for (relative, json) in catalogue.answers { staged.files.append(try write(json, to: relative, in: folder)) }
        for (relative, bytes) in catalogue.thumbnails { staged.files.append(try write(bytes, to: relative, in: folder)) }
        let answers = staged.files
        // While packages arrive, the index names the earlier files too: each stays served until
        // its replacement is in place.
        try await stagePackages(packages.map(\.item), kept: earlier, in: folder, report) { files in
            var current = staged
            current.files = (answers + files).sorted { $0.path < $1.path }
            index.put(current)
            try writeIndex(index, in: folder)
        }
    }

    private func stageMobileMapPackage(_ id: ItemID, into index: inout MirrorIndex, in folder: ConfinedFolder,
                                       _ report: @escaping @Sendable (Event) -> Void) async throws {
        let json = try await client.itemJSON(id)
        guard let item = PortalDecoding.item(json) else {
            throw PortalError(.malformedResponse, host: client.host, serverMessage: "item without an id", itemID: id)
        }
        guard item.type == PortalItem.mobileMapPackageType else {
            throw PortalError(.wrongItemType(expected: PortalItem.mobileMapPackageType, actual: item.type), host: client.host, itemID: id)
        }
        if try isPrivate(item) { index.includesPrivate = true }
        report(.planned(title: item.title, areas: 0, packages: 1, bytes: item.size ?? 0))
        var staged = StagedPackage(id: id, title: item.title, stagedAt: Date(), files: [try write(json, to: MirrorLayout.item(id), in: folder)])
        if let name = item.thumbnail, let relative = MirrorLayout.info(of: id, named: name),
           let bytes = try? await client.thumbnail(of: id, named: name) {
            staged.files.append(try write(bytes, to: relative, in: folder))
        }
        let answers = staged.files
        try await stagePackages([item], kept: index.mobileMapPackage(id)?.files ?? [], in: folder, report) { files in
            var current = staged
            current.files = (answers + files).sorted { $0.path < $1.path }
            index.put(current)
            try writeIndex(index, in: folder)
        }
    }

    /// Each item's data: kept when the folder holds this version (in `kept`, on disk at its
    /// size), else fetched; `publish` writes the index with the files so far (and those of `kept`
    /// not replaced yet) after each fetch, and once more at the end with exactly the files staged.
    private func stagePackages(_ items: [PortalItem], kept: [MirrorFile], in folder: ConfinedFolder, _ report: @escaping @Sendable (Event) -> Void,
                               publish: ([MirrorFile]) throws -> Void) async throws {
        var files: [MirrorFile] = []
        for item in items where !files.contains(where: { $0.item == item.id }) {
            let size = item.size.flatMap { $0 > 0 ? $0 : nil }
            if let earlier = kept.first(where: { $0.path == MirrorLayout.data(of: item.id) }),
               earlier.modified == item.modified.map(DownloadRecord.millis), earlier.size == size,
               folder.size(of: earlier.path) == earlier.size {
                files.append(earlier)
                report(.staged(package: item.id, title: item.title, file: earlier, fetched: false))
                continue
            }
            report(.fetching(package: item.id, title: item.title, size: size))
            let file = try await fetch(item, into: folder) { report(.progress(package: item.id, bytes: $0, total: size)) }
            files.append(file)
            let placed = Set(files.map(\.path))
            try publish(files + kept.filter { !placed.contains($0.path) && $0.item != nil })
            report(.staged(package: item.id, title: item.title, file: file, fetched: true))
        }
        try publish(files)
    }

    /// An area's `Area2Package` answer and its items.
    private struct PackageList: Sendable {
        var json: JSONValue
        var items: [PortalItem]
    }

    /// The web map's answers as the portal gives them, the thumbnails, and the areas chosen.
    private struct Catalogue {
        var webMapItem: PortalItem
        var answers: [(String, JSONValue)] = []
        var thumbnails: [(String, Data)] = []
        var areas: [MapArea] = []
        var holdsPrivate = false
    }

    private func read(_ webMapID: ItemID, _ areas: Areas) async throws -> Catalogue {
        let webMapJSON = try await client.itemJSON(webMapID)
        guard let webMapItem = PortalDecoding.item(webMapJSON) else {
            throw PortalError(.malformedResponse, host: client.host, serverMessage: "item without an id", itemID: webMapID)
        }
        guard webMapItem.type == "Web Map" else {
            throw PortalError(.wrongItemType(expected: "Web Map", actual: webMapItem.type), host: client.host, itemID: webMapID)
        }
        var catalogue = Catalogue(webMapItem: webMapItem)
        if try isPrivate(webMapItem) { catalogue.holdsPrivate = true }
        catalogue.answers.append((MirrorLayout.item(webMapID), webMapJSON))
        catalogue.answers.append((MirrorLayout.dataJSON(of: webMapID), try await client.itemDataJSON(webMapID)))

        let related = try await client.relatedItemsJSON(of: webMapID, relationship: "Map2Area")
        let items = related.items.filter { $0.type.isEmpty || $0.type == "Map Area" }
        // Areas named are chosen by their items: only theirs are asked for their packages.
        var wanted = items
        if case .chosen(let choose) = areas {
            let ids = Set(try choose(items.map { PortalDecoding.mapArea($0, packages: [], pending: true) }).map(\.item.id))
            wanted = items.filter { ids.contains($0.id) }
        }
        // The package lists, eight at a time (as the portal client lists areas); the first failure stops the stage.
        let client = client
        let asked = await wanted.concurrentMap(atMost: 8) { item -> Result<PackageList, any Error> in
            do {
                let answer = try await client.relatedItemsJSON(of: item.id, relationship: "Area2Package")
                return .success(PackageList(json: answer.json, items: answer.items))
            } catch {
                return .failure(error)
            }
        }
        var listed: [MapArea] = []
        var packageAnswers: [ItemID: JSONValue] = [:]
        for (item, answer) in zip(wanted, asked) {
            let packages = try answer.get()
            packageAnswers[item.id] = packages.json
            listed.append(PortalDecoding.mapArea(item, packages: packages.items))
        }
        // Every downloadable area, or each one named (one that cannot be downloaded is refused).
        let chosen: [MapArea]
        switch areas {
        case .all: chosen = listed.filter(\.isDownloadable)
        case .chosen: chosen = listed
        }
        for area in chosen {
            guard area.isDownloadable else {
                throw LibraryError.notDownloadable(title: area.item.title, reason: NotDownloadableReason(area) ?? .noPackages)
            }
            for item in [area.item] + area.packages.map(\.item) where try isPrivate(item) { catalogue.holdsPrivate = true }
            catalogue.answers.append((MirrorLayout.item(area.item.id), area.item.arcGISJSON))
            catalogue.answers.append((MirrorLayout.relatedItems(of: area.item.id, relationship: "Area2Package"), packageAnswers[area.item.id]!))
            for package in area.packages {
                catalogue.answers.append((MirrorLayout.item(package.item.id), package.item.arcGISJSON))
            }
        }
        catalogue.areas = chosen
        // The areas' list names only what is staged: a device with the portal gone sees what it can have.
        let ids = Set(chosen.map(\.item.id))
        var answer: [String: JSONValue] = [:]
        if case .object(let members) = related.json { answer = members }
        let kept = (related.json["relatedItems"]?.array ?? []).filter { $0["id"]?.string.flatMap(ItemID.init).map(ids.contains) ?? false }
        answer["relatedItems"] = .array(kept)
        answer["total"] = .number(Double(kept.count))
        catalogue.answers.append((MirrorLayout.relatedItems(of: webMapID, relationship: "Map2Area"), .object(answer)))

        for item in [webMapItem] + chosen.map(\.item) {
            guard let name = item.thumbnail, let relative = MirrorLayout.info(of: item.id, named: name) else { continue }
            // A thumbnail the portal cannot give is not worth failing the stage for.
            if let bytes = try? await client.thumbnail(of: item.id, named: name) { catalogue.thumbnails.append((relative, bytes)) }
        }
        return catalogue
    }

    /// Whether the item is not public; refused unless asked to stage such content.
    private func isPrivate(_ item: PortalItem) throws -> Bool {
        guard let access = item.access, access != "public" else { return false }
        guard includePrivate else { throw MirrorStageError.notPublic(title: item.title, access: access) }
        return true
    }

    private func write(_ json: JSONValue, to relative: String, in folder: ConfinedFolder) throws -> MirrorFile {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try write(try encoder.encode(json), to: relative, in: folder)
    }

    /// One answer in place (rewritten only when it changed, so its ETag stays); anything but a
    /// plain file in its place (a link, a FIFO) is replaced, never followed or read.
    private func write(_ bytes: Data, to relative: String, in folder: ConfinedFolder) throws -> MirrorFile {
        guard !client.holdsToken(bytes) else { throw MirrorStageError.tokenInAnswer(path: relative) }
        let parent = try folder.directory((relative as NSString).deletingLastPathComponent)
        let target = parent.path((relative as NSString).lastPathComponent)
        let current = try? ReadableFile(path: target, followingLinks: false)
        if current.map({ $0.size != Int64(bytes.count) || $0.read(at: 0, upTo: bytes.count) != bytes }) ?? true {
            do { try AtomicFile.write(bytes, to: target) } catch { throw parent.shown(error) }
        }
        return MirrorFile(path: relative, size: Int64(bytes.count), sha256: try FileDigest.sha256(path: target))
    }

    private func writeIndex(_ index: MirrorIndex, in folder: ConfinedFolder) throws {
        let root = try folder.directory("")
        do { try AtomicFile.writeJSON(index, to: root.path(MirrorLayout.index)) } catch { throw root.shown(error) }
    }

    /// One item's data into `.stage/`, resumable, checked by its own checksums and hashed as it
    /// arrives, then renamed into place.
    private func fetch(_ item: PortalItem, into folder: ConfinedFolder, report: @escaping @Sendable (Int64) -> Void) async throws -> MirrorFile {
        let id = item.id, size = item.size.flatMap { $0 > 0 ? $0 : nil }
        let work = try folder.directory(Self.work)
        defer { withExtendedLifetime(work) {} }
        let transfer = ResumableTransfer(http: http, request: client.packageRequest(id), part: work.path("\(id.rawValue).part"),
                                         controlPath: work.path("\(id.rawValue).json"), itemID: id,
                                         modified: item.modified.map(DownloadRecord.millis), expectedSize: size, hashing: true)
        let (_, checksums, streamed) = try await transfer.run(meter: AreaByteCount(), started: { _ in }, report: report)
        let verifiedBy: String, sha256: String
        do {
            verifiedBy = try PackageVerifier.verify(path: transfer.part, name: item.title, expectedSize: size,
                                                    fileName: Self.fileName(for: item), streamed: checksums)
            sha256 = try streamed ?? FileDigest.sha256(path: transfer.part)
        } catch {
            transfer.discard()
            throw error
        }
        let relative = MirrorLayout.data(of: id)
        let parent = try folder.directory((relative as NSString).deletingLastPathComponent)
        let target = parent.path((relative as NSString).lastPathComponent)
        do { try AtomicFile.move(transfer.part, to: target) } catch { throw parent.shown(error) }
        unlink(transfer.controlPath)
        return MirrorFile(path: relative, size: folder.size(of: relative) ?? 0, sha256: sha256, item: id,
                          modified: item.modified.map(DownloadRecord.millis), verifiedBy: verifiedBy)
    }

    /// The name that says what kind of package an item's data is, for its checks.
    private static func fileName(for item: PortalItem) -> String {
        item.type == PortalItem.mobileMapPackageType ? DevicePackages.fileName(for: item.id)
            : OfflineLibrary.fileName(for: PortalDecoding.mapArea(item, packages: [item]).packages[0])
    }

    /// Deletes the staged files no entry of the index names (and folders left empty, and what
    /// `.stage/` holds), never following a link; returns the paths deleted.
    private func removeUnlisted(by index: MirrorIndex, in folder: ConfinedFolder) -> [String] {
        let wanted = index.paths
        let removed = folder.prune("sharing") { wanted.contains($0) }
        // Every package is in place: what `.stage/` still holds is of versions no longer wanted.
        _ = folder.prune(Self.work) { _ in false }
        return removed
    }
}

/// Why a stage is refused.
public enum MirrorStageError: Error, Sendable, Equatable, UserFacingError {
    case otherPortal(directory: String, portal: String)
    case notPublic(title: String, access: String)
    case tokenInAnswer(path: String)
    case busy(directory: String, pid: Int32?)
    case notAMirror(directory: String)

    public var userMessage: String {
        switch self {
        case .otherPortal(let directory, let portal):
            "\(directory) mirrors \(TerminalText.sanitizedLine(portal, maxLength: 200)); stage another portal into a folder of its own."
        case .notPublic(let title, let access):
            "\(TerminalText.sanitizedLine(title, maxLength: 120)) is not public (access: \(TerminalText.sanitizedLine(access, maxLength: 20))); give --include-private to stage it, knowing the mirror serves it to anyone who can reach it."
        case .busy(let directory, let pid):
            "\(directory) is being staged by another mapbook\(pid.map { " (pid \($0))" } ?? ""); wait for it to end."
        case .notAMirror(let directory):
            "\(directory)/mirror.json is not one mapbook stage wrote (a link, or other JSON); move it away to stage into this folder."
        case .tokenInAnswer(let path):
            "The portal's answer for \(path) holds your token, so it was not staged: a mirror must never hold one."
        }
    }
}
