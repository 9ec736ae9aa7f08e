import ArcGISModel
import Foundation
import MapbookCore
import TileFormats

/// The mobile map packages kept on this device: a folder of the offline library (`packages/`),
/// filled by `mapbook import` or by hand, read without a network. Shared by the CLI and the browser.
public struct DevicePackages: Sendable {
    /// One package in the folder, read; or the sentence why it cannot be.
    public struct Entry: Sendable {
        /// Its name in the folder: a `.mmpk` file or an unpacked package's folder.
        public let fileName: String
        public let path: String
        public let size: Int64
        /// When it arrived here (the file's modification time).
        public let added: Date?
        public let info: MobileMapPackageInfo?
        public let mapNames: [String]
        public let problem: String?
        /// The portal item it was downloaded from; nil for one imported or copied here.
        public let origin: PackageOrigin?

        /// Whether the portal's item has changed since this copy was downloaded.
        public func isOutdated(by item: PortalItem) -> Bool {
            guard let origin, origin.itemID == item.id.rawValue, let modified = item.modified else { return false }
            return modified.epochMilliseconds > origin.modified
        }
    }

    public let folder: String

    /// The folder inside the library at `libraryRoot`.
    public init(libraryRoot: String) { folder = libraryRoot + "/packages" }

    /// Every package in the folder, by title (then file name); entries that do not read say why.
    public func list() -> [Entry] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }
        return names.map { entry(at: folder + "/" + $0) }
            .sorted {
                let order = ($0.info?.title ?? $0.fileName).localizedStandardCompare($1.info?.title ?? $1.fileName)
                return order == .orderedSame ? $0.fileName < $1.fileName : order == .orderedAscending
            }
    }

    /// Copies a package into the folder after reading it whole (and, zipped, checking every file
    /// against its checksum), so what lands here opens. A package of the same name is replaced, and
    /// only once the copy is complete; an interrupted import leaves nothing behind but a hidden part.
    @discardableResult
    public func importPackage(from source: String) throws(MobilePackageError) -> (entry: Entry, replaced: Bool) {
        let name = URL(fileURLWithPath: source).standardizedFileURL.lastPathComponent
        let shown = TerminalText.sanitizedLine(name, maxLength: 120)
        guard MobileMapPackage.recognizes(path: source) else {
            throw MobilePackageError("\(shown) is not a mobile map package (a .mmpk, or a folder holding pNN/*.mmap).")
        }
        let package = try MobileMapPackage(path: source)
        try package.verifyChecksums()
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw MobilePackageError("The packages folder cannot be made (\(error.localizedDescription)).")
        }
        if let free = DiskSpace.available(at: folder), package.size > free - (16 << 20) {
            throw MobilePackageError("\(shown) needs \(Format.bytes(package.size)) and the disk has \(Format.bytes(max(free, 0))) free.")
        }
        let destination = folder + "/" + name
        let part = folder + "/.importing-\(getpid())-" + name
        try? FileManager.default.removeItem(atPath: part)
        do {
            try Self.copy(package, to: part)
        } catch {
            try? FileManager.default.removeItem(atPath: part)
            throw MobilePackageError("\(shown) could not be copied here (\(error.userSentence)).")
        }
        let replaced = FileManager.default.fileExists(atPath: destination)
        // A file replaces a file in one rename; a folder is moved aside first, and back if the new
        // one cannot take its place, so the old package is gone only once the new one is there.
        let aside = folder + "/.replaced-\(getpid())-" + name
        let folderInTheWay = replaced && (package.isFolder
            || (try? FileManager.default.attributesOfItem(atPath: destination)[.type] as? FileAttributeType) == .typeDirectory)
        if folderInTheWay { _ = rename(destination, aside) }
        // Added now, whatever the source's own time: the list's "added" says when it came.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: part)
        guard rename(part, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: part)
            if folderInTheWay { _ = rename(aside, destination) }
            throw MobilePackageError("\(shown) could not be put in place (\(reason)).")
        }
        if folderInTheWay { try? FileManager.default.removeItem(atPath: aside) }
        return (entry(at: destination), replaced)
    }

    /// The package's own files into `destination`: the zip, or each file an unpacked package lists,
    /// read as every package file is (a FIFO or device in a file's place is refused, never waited
    /// on; a link that leads outside the package is not followed).
    static func copy(_ package: MobileMapPackage, to destination: String) throws {
        guard package.isFolder else { return try copy(FileByteSource(path: package.path), to: destination) }
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false)
        for name in package.files.keys.sorted() {
            let target = destination + "/" + name
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try copy(package.byteSource(of: name), to: target)
        }
    }

    /// One file's bytes, a mebibyte at a time.
    private static func copy(_ source: any ByteSource, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let out = FileHandle(forWritingAtPath: path) else {
            throw MobilePackageError("\(TerminalText.sanitizedLine(path, maxLength: 200)) cannot be written")
        }
        defer { try? out.close() }
        var offset: Int64 = 0
        while offset < source.size {
            let count = Int(min(source.size - offset, 1 << 20))
            try out.write(contentsOf: try source.read(at: offset, count: count))
            offset += Int64(count)
        }
        try out.synchronize()
    }

    /// A package by its file name, else its title (any case); several of one title are refused by name.
    public func find(_ name: String) throws(MobilePackageError) -> Entry {
        let entries = list()
        if let exact = entries.first(where: { $0.fileName == name }) { return exact }
        let matches = entries.filter {
            $0.info?.title.caseInsensitiveCompare(name) == .orderedSame || $0.fileName.caseInsensitiveCompare(name) == .orderedSame
        }
        let shown = TerminalText.sanitizedLine(name, maxLength: 80)
        guard matches.count <= 1 else {
            throw MobilePackageError("Several packages on this device are called \(shown) (\(matches.map { TerminalText.sanitizedLine($0.fileName, maxLength: 60) }.joined(separator: ", "))); name one by its file.")
        }
        guard let found = matches.first else {
            throw MobilePackageError("No file or package on this device is called \(shown) (`mapbook packages` lists the packages).")
        }
        return found
    }

    /// The package downloaded from a portal item, if it is here.
    public func downloaded(_ item: ItemID) -> Entry? {
        let path = folder + "/" + Self.fileName(for: item)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let found = entry(at: path)
        return found.origin?.itemID == item.rawValue ? found : nil
    }

    /// The file a portal item's package is kept in: named by its id, never by a name from the network.
    public static func fileName(for item: ItemID) -> String { item.rawValue + ".mmpk" }

    /// Where the record of a downloaded package's portal item is kept.
    public func originPath(of fileName: String) -> String { folder + "/.origins/" + fileName + ".json" }

    /// Removes a package from the folder (`find` says which).
    @discardableResult
    public func remove(_ name: String) throws(MobilePackageError) -> Entry {
        let found = try find(name)
        do { try FileManager.default.removeItem(atPath: found.path) } catch {
            throw MobilePackageError("\(TerminalText.sanitizedLine(found.fileName, maxLength: 80)) could not be removed (\(error.localizedDescription)).")
        }
        try? FileManager.default.removeItem(atPath: originPath(of: found.fileName))
        return found
    }

    /// Dates as the library writes them: epoch milliseconds.
    private static var originDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }

    private func entry(at path: String) -> Entry {
        let fileName = URL(fileURLWithPath: path).lastPathComponent
        let added = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64 ?? 0
        // Trusted only while it describes the file there: a crash between writing it and moving a
        // new download in leaves one that names another size.
        let origin = (FileManager.default.contents(atPath: originPath(of: fileName)))
            .flatMap { try? Self.originDecoder.decode(PackageOrigin.self, from: $0) }
            .flatMap { $0.size == fileSize ? $0 : nil }
        do {
            let package = try MobileMapPackage(path: path)
            return Entry(fileName: fileName, path: path, size: package.size, added: added, info: package.info,
                         mapNames: package.maps.map(\.name), problem: nil, origin: origin)
        } catch {
            return Entry(fileName: fileName, path: path, size: fileSize, added: added, info: nil, mapNames: [], problem: error.sentence, origin: origin)
        }
    }
}

/// Where a package in the folder came from, when it was downloaded from a portal: the item and the
/// version (`modified`, epoch milliseconds) fetched, for "update available".
public struct PackageOrigin: Sendable, Equatable, Codable {
    public var portal: String
    public var itemID: String
    public var title: String
    public var modified: Int64
    /// The file's size once downloaded.
    public var size: Int64
    public var downloadedAt: Date
    /// The fleet mirror the bytes came from; nil for the portal.
    public var mirror: String?
    /// Why the mirror's copy was not taken, when it was tried.
    public var mirrorProblem: String?
    /// The checks it passed (`SHA-256, the portal's zip directory, zip CRC-32`).
    public var verifiedBy: String?

    public init(portal: String, itemID: String, title: String, modified: Int64, size: Int64, downloadedAt: Date,
                mirror: String? = nil, mirrorProblem: String? = nil, verifiedBy: String? = nil) {
        self.portal = portal; self.itemID = itemID; self.title = title; self.modified = modified; self.size = size
        self.downloadedAt = downloadedAt; self.mirror = mirror; self.mirrorProblem = mirrorProblem; self.verifiedBy = verifiedBy
    }
}
