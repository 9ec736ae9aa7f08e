import ArgumentParser
import Foundation
import HTTP
import MapbookCore
import OfflineLibrary

/// `mapbook cache`: what mapbook keeps only to be quicker — portal answers kept to ask about again,
/// and basemap tiles seen online — and a way to delete it. Downloaded areas are not a cache.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show or clear what mapbook keeps only to be quicker: portal answers and basemap tiles.",
        discussion: """
            Portal answers are kept in $XDG_CACHE_HOME/mapbook/http, a folder per portal of at most \
            16 MiB; basemap tiles seen online in each portal's folder of the offline library, at most \
            64 MiB per basemap. The least recently used go first. Downloaded areas are not touched.
            """,
        subcommands: [Info.self, Clear.self],
        defaultSubcommand: Info.self)

    /// One cache folder: which portal, which kind, what it holds.
    struct Folder {
        var portal: String
        var kind: String
        var path: String
        var summary: (files: Int, bytes: Int64, oldest: Date?, newest: Date?)
    }

    /// Every cache folder, HTTP answers first, by portal.
    static func folders(dataDirectory: DataDirectoryOption) -> [Folder] {
        let fileManager = FileManager.default
        func subfolders(_ path: String) -> [String] {
            ((try? fileManager.contentsOfDirectory(atPath: path)) ?? []).sorted().filter {
                var isDirectory: ObjCBool = false
                return fileManager.fileExists(atPath: path + "/" + $0, isDirectory: &isDirectory) && isDirectory.boolValue
            }
        }
        let http = LibraryLocation.httpCacheRoot()
        var folders = subfolders(http).map { portal in
            Folder(portal: portal, kind: "answers", path: http + "/" + portal,
                   summary: BoundedDiskCache.summary(of: http + "/" + portal, suffix: ".answer"))
        }
        let portals = dataDirectory.root + "/portals"
        for portal in subfolders(portals) {
            let tiles = portals + "/" + portal + "/tile-cache"
            guard fileManager.fileExists(atPath: tiles) else { continue }
            folders.append(Folder(portal: portal, kind: "tiles", path: tiles,
                                  summary: BoundedDiskCache.summary(of: tiles, suffix: ".pbf")))
        }
        return folders
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "info", abstract: "Show what the caches hold, by portal.")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Flag(help: "Print JSON instead of text.") var json = false

        func run() throws {
            let rows = CacheCommand.folders(dataDirectory: dataDirectory).map { folder in (folder, folder.summary) }
            if json {
                try Output.json(JSONValue.object(["caches": .array(rows.map { folder, summary in
                    .object(["portalFolder": .string(folder.portal), "kind": .string(folder.kind), "path": .string(folder.path),
                             "files": .number(Double(summary.files)), "bytes": .count(summary.bytes),
                             "oldestUse": .date(summary.oldest), "newestUse": .date(summary.newest)])
                })]))
                return
            }
            guard !rows.isEmpty else {
                Output.line("The caches are empty.")
                return
            }
            let table = rows.map { folder, summary in
                [folder.portal, folder.kind, Format.grouped(summary.files), Format.bytes(summary.bytes),
                 summary.newest.map(Format.timestamp) ?? "–"]
            }
            for line in Output.table(["PORTAL", "KIND", "FILES", "SIZE", "LAST USED"], table, rightAligned: [2, 3]) {
                Output.line("  " + line)
            }
            let total = rows.reduce(Int64(0)) { $0 + $1.1.bytes }
            Output.line("\(Format.bytes(total)) in all; `mapbook cache clear` deletes it (downloaded areas stay).")
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear",
                                                        abstract: "Delete the cached portal answers and basemap tiles (downloaded areas stay).")
        @OptionGroup var dataDirectory: DataDirectoryOption

        func run() throws {
            let folders = CacheCommand.folders(dataDirectory: dataDirectory)
            let bytes = folders.reduce(Int64(0)) { $0 + $1.summary.bytes }
            // The folders hold nothing but cached files.
            for folder in folders { try? FileManager.default.removeItem(atPath: folder.path) }
            Output.line("Deleted \(Format.bytes(bytes)) of cached answers and tiles.")
        }
    }
}
