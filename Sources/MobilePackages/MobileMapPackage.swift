import ArcGISModel
import Foundation
import Geometry
import MapbookCore
import TileFormats

/// Why a mobile map package cannot be read, in one sentence.
public struct MobilePackageError: UserFacingError, Equatable, Sendable, CustomStringConvertible {
    public let sentence: String
    /// Made one clean line here: sentences name the package's own entries.
    public init(_ sentence: String) { self.sentence = TerminalText.sanitizedLine(sentence, maxLength: 2_000) }
    public var description: String { sentence }
    public var userMessage: String { sentence }
}

/// A mobile map package (`.mmpk`): a stored zip, or the folder Esri's SDKs unpack one into. Read in
/// place: its description (`package.info` or `<name>.info`), its maps (`pNN/<map>.mmap`, each
/// shaped like a web map), and the files their layers name by `path` — geodatabases and tile
/// packages beside the map.
public final class MobileMapPackage: Sendable {
    /// One map of the package.
    public struct Map: Sendable {
        public let name: String
        /// Where its `.mmap` lies in the package (`p13/mobile_map.mmap`).
        public let entry: String
        public let webMap: WebMap
        /// The map item's extent, in degrees.
        public let extent: GeoExtent?
    }

    public let path: String
    public let info: MobileMapPackageInfo
    public let maps: [Map]
    /// What was wrong but did not stop the reading: a map listed and not there, an `.mmap` that
    /// does not parse. One sentence each.
    public let problems: [String]
    /// Every file it holds, by its name in the package (`p13/data.geodatabase`).
    public let files: [String: Int64]
    private let container: Container

    private enum Container: Sendable {
        case folder(root: String)
        case zip(ZipArchive)
    }

    /// The most files a package may hold; the largest `.info` or `.mmap` read, and the most map
    /// text read in all (real maps are tens of kilobytes); the most maps read, in the order listed.
    static let maxFiles = 100_000
    static let maxDocument = 8 << 20
    static let maxMapText = 32 << 20
    static let maxMaps = 1_000

    /// Whether `path` looks like a mobile map package: a `.mmpk` file, or a zip or folder holding a
    /// `pNN/*.mmap`. Cheap: reads a zip's directory, a folder's first level.
    public static func recognizes(path: String) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return false }
        if isFolder.boolValue {
            let top = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return top.contains { isMapFolder($0) && ((try? FileManager.default.contentsOfDirectory(atPath: path + "/" + $0)) ?? []).contains(where: isMapFile) }
        }
        if path.lowercased().hasSuffix(".mmpk") { return true }
        guard let source = try? FileByteSource(path: path), let head = try? source.read(at: 0, count: min(4, Int(source.size))),
              head == Data([0x50, 0x4B, 0x03, 0x04]), let zip = try? ZipArchive(source: source) else { return false }
        return zip.entries.contains { isMapEntry($0.name) }
    }

    public init(path: String) throws(MobilePackageError) {
        self.path = path
        let label = TerminalText.sanitizedLine(URL(fileURLWithPath: path).lastPathComponent, maxLength: 120)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw MobilePackageError("\(label) does not exist.")
        }
        if isFolder.boolValue {
            let root = URL(fileURLWithPath: path).standardizedFileURL.path
            container = .folder(root: root)
            files = try Self.listFolder(root, label: label)
        } else {
            do {
                let zip = try ZipArchive(source: FileByteSource(path: path))
                container = .zip(zip)
                var names: [String: Int64] = [:]
                for entry in zip.entries where !entry.isDirectory { names[entry.name] = entry.size }
                files = names
            } catch {
                throw MobilePackageError("\(label) is not a mobile map package that can be read: \(error.description).")
            }
        }
        var problems: [String] = []
        let infoName = files.keys.contains("package.info") ? "package.info"
            : files.keys.filter { !$0.contains("/") && $0.lowercased().hasSuffix(".info") }.sorted().first
        let fallbackTitle = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        var info = MobileMapPackageInfo(title: fallbackTitle)
        if let infoName {
            do {
                info = MobileMapPackageInfo(json: try JSONValue(parsing: try Self.read(infoName, files: files, container: container)),
                                            fallbackTitle: fallbackTitle)
            } catch {
                problems.append("Its description (\(TerminalText.sanitizedLine(infoName, maxLength: 80))) does not read, so only its maps are shown.")
            }
        }
        if let type = info.type, type.caseInsensitiveCompare("Mobile Map Package") != .orderedSame {
            problems.append("It says it is a \(TerminalText.sanitizedLine(type, maxLength: 60)), not a mobile map package; its maps are read all the same.")
        }
        self.info = info
        var found: [Map] = []
        var entries = files.keys.filter(Self.isMapEntry).sorted()
        if entries.count > Self.maxMaps {
            problems.append("It holds \(Format.grouped(entries.count)) maps; mapbook reads the first \(Format.grouped(Self.maxMaps)).")
            entries = Array(entries.prefix(Self.maxMaps))
        }
        var mapText = 0
        for entry in entries {
            let shown = TerminalText.sanitizedLine(entry, maxLength: 80)
            mapText += Int(files[entry] ?? 0)
            guard mapText <= Self.maxMapText else {
                problems.append("Its maps hold more than the \(Format.bytes(Int64(Self.maxMapText))) of text mapbook reads; \(shown) and the maps after it are left out.")
                break
            }
            do {
                let json = try JSONValue(parsing: try Self.read(entry, files: files, container: container))
                guard json["map"]?.object != nil || json["operationalLayers"] != nil else {
                    problems.append("\(shown) is not a map (it has no \"map\"), so it is left out.")
                    continue
                }
                let map = json["map"]?.object != nil ? json["map"]! : json
                let base = URL(fileURLWithPath: entry).deletingPathExtension().lastPathComponent
                found.append(Map(name: json["item"]?["title"]?.string.flatMap { $0.isEmpty ? nil : $0 } ?? base, entry: entry,
                                 webMap: PortalDecoding.webMap(map), extent: PortalDecoding.cornerExtent(json["item"]?["extent"])))
            } catch {
                problems.append("\(shown) does not read (\(error.userSentence)), so it is left out.")
            }
        }
        let ordered = Self.ordered(found, as: info.mapNames, problems: problems)
        maps = ordered.0
        problems = ordered.1
        self.problems = problems
        guard !maps.isEmpty else {
            throw MobilePackageError("\(label) holds no map that can be read" + (found.isEmpty && !files.keys.contains(where: Self.isMapEntry)
                ? " (no pNN/*.mmap in it)." : ": " + (problems.first ?? "")))
        }
    }

    /// The maps in the order the package lists them (by title or file name, any case); maps it
    /// does not list after, in folder order. A single unnamed map takes the one listed name.
    /// Linear in maps and names: each map is found through a table of its names.
    static func ordered(_ maps: [Map], as names: [String], problems: [String]) -> ([Map], [String]) {
        var problems = problems
        if names.count == 1, maps.count == 1, let only = maps.first, !matches(only, names[0]) {
            return ([Map(name: names[0], entry: only.entry, webMap: only.webMap, extent: only.extent)], problems)
        }
        // Each name's maps, earliest first; a title counts before a file name as the search did.
        var byName: [String: [Int]] = [:]
        for (index, map) in maps.enumerated() { byName[map.name.lowercased(), default: []].append(index) }
        for (index, map) in maps.enumerated() { byName[stem(map).lowercased(), default: []].append(index) }
        for name in byName.keys { byName[name]?.sort() }
        var taken = Set<Int>(), out: [Map] = [], unheld: [String] = []
        for name in names {
            if let index = byName[name.lowercased()]?.first(where: { !taken.contains($0) }) {
                taken.insert(index)
                out.append(maps[index])
            } else {
                unheld.append(name)
            }
        }
        for name in unheld.prefix(10) { problems.append("It lists the map \(TerminalText.sanitizedLine(name, maxLength: 80)), which it does not hold.") }
        if unheld.count > 10 { problems.append("It lists \(Format.grouped(unheld.count - 10)) more maps it does not hold.") }
        return (out + maps.indices.filter { !taken.contains($0) }.map { maps[$0] }, problems)
    }

    private static func stem(_ map: Map) -> String { URL(fileURLWithPath: map.entry).deletingPathExtension().lastPathComponent }

    private static func matches(_ map: Map, _ name: String) -> Bool {
        map.name.lowercased() == name.lowercased() || stem(map).lowercased() == name.lowercased()
    }

    /// A map by its name (any case) or number (1 is the first); the first when none is named.
    public func map(named wanted: String?) throws(MobilePackageError) -> Map {
        guard let wanted else { return maps[0] }
        guard let found = maps.first(where: { $0.name.caseInsensitiveCompare(wanted) == .orderedSame })
            ?? Int(wanted).flatMap({ $0 >= 1 && $0 <= maps.count ? maps[$0 - 1] : nil }) else {
            throw MobilePackageError("\(TerminalText.sanitizedLine(info.title, maxLength: 80)) has no map \(TerminalText.sanitizedLine(wanted, maxLength: 80)); its maps are \(maps.map { TerminalText.sanitizedLine($0.name, maxLength: 80) }.joined(separator: ", ")).")
        }
        return found
    }

    // MARK: Files

    /// The package file a layer's `path` names, found beside its map; nil when it leads outside the
    /// package or is not there.
    public func resolve(_ file: String, beside map: Map) -> String? {
        guard !file.hasPrefix("/") else { return nil }
        var parts = map.entry.split(separator: "/").dropLast().map(String.init)
        for part in file.split(separator: "/") {
            switch part {
            case ".", "": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(String(part))
            }
        }
        let name = parts.joined(separator: "/")
        if files[name] != nil { return name }
        return files.keys.first { $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// A file's bytes, read in place (a tile package inside the package).
    public func byteSource(of name: String) throws(MobilePackageError) -> any ByteSource {
        try reading(name) { zip, entry in try zip.source(of: entry) } inFolder: { path in try FileByteSource(path: path) }
    }

    /// A file on disk for readers that need a path (SQLite): the folder's own, or a copy out of the zip
    /// (checked against its CRC, kept with the inflated package entries).
    public func localPath(of name: String) throws(MobilePackageError) -> String {
        try reading(name) { zip, entry in try zip.fileCopy(of: entry) } inFolder: { path in path }
    }

    /// A file of the package, by its entry in the zip or its checked path in the folder; any failure
    /// one sentence naming it.
    private func reading<T>(_ name: String, inZip: (ZipArchive, ZipEntry) throws -> T, inFolder: (String) throws -> T) throws(MobilePackageError) -> T {
        do {
            switch container {
            case .folder(let root): return try inFolder(try Self.inside(root, name))
            case .zip(let zip):
                guard let entry = zip.entry(named: name) else { throw MobilePackageError("\(Self.shown(name)) is not in the package.") }
                return try inZip(zip, entry)
            }
        } catch let error as MobilePackageError {
            throw error
        } catch {
            throw MobilePackageError("\(Self.shown(name)) cannot be read: \(error.userSentence)")
        }
    }

    /// The package's size on disk: the zip, or the folder's files.
    public var size: Int64 {
        switch container {
        case .folder: files.values.reduce(0, +)
        case .zip(let zip): zip.source.size
        }
    }

    public var isFolder: Bool { if case .folder = container { true } else { false } }

    /// Checks a zipped package's every file against the CRC-32 its zip records (an unpacked folder
    /// has no checksums to check); throws the first that fails.
    public func verifyChecksums() throws(MobilePackageError) {
        guard case .zip(let zip) = container else { return }
        do { try zip.verifyChecksums() } catch {
            throw MobilePackageError("\(TerminalText.sanitizedLine(URL(fileURLWithPath: path).lastPathComponent, maxLength: 120)) is damaged: \(error.description).")
        }
    }

    // MARK: Reading

    static func isMapFolder(_ name: Substring) -> Bool {
        name.count >= 2 && name.count <= 4 && name.first.map { $0 == "p" || $0 == "P" } == true && name.dropFirst().allSatisfy(\.isNumber)
    }
    static func isMapFolder(_ name: String) -> Bool { isMapFolder(Substring(name)) }
    static func isMapFile(_ name: String) -> Bool { name.lowercased().hasSuffix(".mmap") }

    /// `pNN/<name>.mmap`, exactly one folder deep.
    static func isMapEntry(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && isMapFolder(parts[0]) && isMapFile(String(parts[1]))
    }

    private static func shown(_ name: String) -> String { TerminalText.sanitizedLine(name, maxLength: 120) }

    private static func read(_ name: String, files: [String: Int64], container: Container) throws -> Data {
        guard let size = files[name], size <= Int64(maxDocument) else {
            throw MobilePackageError("\(shown(name)) is larger than \(maxDocument >> 20) MiB")
        }
        switch container {
        case .folder(let root): return try FileByteSource.contents(of: try inside(root, name), limit: maxDocument)
        case .zip(let zip):
            do {
                guard let data = try zip.contents(of: name, limit: maxDocument) else { throw MobilePackageError("\(shown(name)) is missing") }
                return data
            } catch let error as TileFormatError {
                throw MobilePackageError(error.description)
            }
        }
    }

    /// A name's path in the folder, refused when a link takes it outside.
    private static func inside(_ root: String, _ name: String) throws(MobilePackageError) -> String {
        let path = root + "/" + name
        guard let real = realpath(path, nil) else { throw MobilePackageError("\(shown(name)) is not in the package.") }
        defer { free(real) }
        let resolved = String(cString: real)
        let rootReal = realpath(root, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) } ?? root
        guard resolved.hasPrefix(rootReal + "/") else { throw MobilePackageError("\(shown(name)) leads outside the package, so it is not read.") }
        return resolved
    }

    /// The folder's files with their sizes, names relative to it; links are listed, not followed.
    private static func listFolder(_ root: String, label: String) throws(MobilePackageError) -> [String: Int64] {
        guard let walker = FileManager.default.enumerator(at: URL(fileURLWithPath: root), includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey, .fileSizeKey],
                                                          options: []) else {
            throw MobilePackageError("\(label) cannot be listed.")
        }
        var files: [String: Int64] = [:]
        for case let url as URL in walker {
            // Links are listed, so reading one says where it leads (`inside`) rather than "not there".
            guard let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey, .fileSizeKey]),
                  values.isRegularFile == true || values.isSymbolicLink == true else { continue }
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(root + "/") else { continue }
            files[String(full.dropFirst(root.count + 1))] = Int64(values.fileSize ?? 0)
            guard files.count <= maxFiles else { throw MobilePackageError("\(label) holds more than \(maxFiles) files; it is not read.") }
        }
        return files
    }
}

/// A layer a packaged map names, and what it is in the package: the planning shared by drawing a
/// map and describing it.
public struct PackagedLayer: Sendable {
    public enum Data: Sendable, Equatable {
        /// A tile package (`.tpk`, `.tpkx`, `.vtpk`) in the package.
        case tilePackage(file: String)
        /// A table of a geodatabase in the package, by its service layer id.
        case geodatabase(file: String, itemID: Int?)
        /// Not drawn, and why, in one sentence.
        case notDrawn(String)
    }

    public let layer: WebMapLayer
    /// Its title, cleaned for the terminal.
    public let title: String
    public let isBasemap: Bool
    /// Whether the map shows it (its own and its groups' visibility).
    public let visible: Bool
    public let data: Data
}

extension MobileMapPackage {
    /// The tile package types a packaged layer may name.
    static let tilePackageSuffixes = [".tpk", ".tpkx", ".vtpk"]

    /// A map's layers in drawing order, bottom first: the basemap's (reference layers last), then the
    /// operational ones, group layers opened.
    public func layers(of map: Map) -> [PackagedLayer] {
        var out: [PackagedLayer] = []
        func add(_ layer: WebMapLayer, isBasemap: Bool, visible: Bool) {
            let shown = visible && layer.visible
            if layer.layerType == "GroupLayer" {
                layer.layers.forEach { add($0, isBasemap: isBasemap, visible: shown) }
                return
            }
            let title = TerminalText.sanitizedLine(layer.title ?? layer.id ?? "A layer", maxLength: 80)
            out.append(PackagedLayer(layer: layer, title: title, isBasemap: isBasemap, visible: shown, data: data(of: layer, title: title, beside: map)))
        }
        let basemap = map.webMap.basemapLayers
        for layer in basemap.filter({ !$0.isReference }) + basemap.filter(\.isReference) { add(layer, isBasemap: true, visible: true) }
        for layer in map.webMap.operationalLayers { add(layer, isBasemap: false, visible: true) }
        if map.webMap.layersLeftOut > 0 {
            let sentence = "The map names \(Format.grouped(map.webMap.layersLeftOut)) more layers than mapbook reads; they are not drawn."
            out.append(PackagedLayer(layer: WebMapLayer(layerType: "Unknown"), title: "More layers", isBasemap: false, visible: false, data: .notDrawn(sentence)))
        }
        return out
    }

    private func data(of layer: WebMapLayer, title: String, beside map: Map) -> PackagedLayer.Data {
        let kind = TerminalText.sanitizedLine(layer.layerType, maxLength: 40)
        guard let path = layer.path.flatMap(PackagedDataPath.init) else {
            return .notDrawn(layer.url != nil ? "\(title) is an online layer (\(kind)); only what the package holds is drawn."
                                              : "\(title) (\(kind)) cannot be drawn: mapbook reads a package's geodatabases and tile packages.")
        }
        guard let file = resolve(path.file, beside: map) else {
            return .notDrawn("\(title) names \(TerminalText.sanitizedLine(path.file, maxLength: 80)), which the package does not hold.")
        }
        let lower = file.lowercased()
        if Self.tilePackageSuffixes.contains(where: lower.hasSuffix) { return .tilePackage(file: file) }
        if lower.hasSuffix(".geodatabase") { return .geodatabase(file: file, itemID: path.itemID) }
        return .notDrawn("\(title) (\(kind), \(TerminalText.sanitizedLine(file, maxLength: 80))) cannot be drawn: mapbook reads a package's geodatabases and tile packages.")
    }
}
