import ArcGISPortal
import ArgumentParser
import Foundation
import MapbookCore
import OfflineLibrary
import ArcGISModel
import UserFiles

/// `mapbook maps`: web maps to open — your content, a group's, a search's, or those opened lately.
struct MapsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maps",
        abstract: "List web maps: your content (--mine), a group's (--group), a search's (--query), or those opened lately (--recent).",
        discussion: """
            --mine, --group and --query need the portal (and --mine a sign-in: mapbook auth login); --recent is read from \
            this device. Without any, --mine when signed in, else --recent. "Offline" marks web maps set up for offline use \
            (the Offline type keyword), those whose preplanned areas mapbook downloads. Open one with mapbook --webmap ID.
            """)

    @OptionGroup var options: PortalOptions
    @OptionGroup var dataDirectory: DataDirectoryOption
    @Flag(help: "Your content: the root and every folder.") var mine = false
    @Option(help: ArgumentHelp("A group's web maps.", valueName: "ID")) var group: String?
    @Option(help: ArgumentHelp("Web maps matching the text.", valueName: "TEXT")) var query: String?
    @Flag(help: "The web maps opened in the browser lately, newest first.") var recent = false
    @Option(help: "At most this many web maps (pages of 100 are read until there are enough).") var limit = 1_000

    func validate() throws {
        guard [mine, group != nil, query != nil, recent].filter({ $0 }).count <= 1 else {
            throw ValidationError("Give one of --mine, --group, --query and --recent.")
        }
        if let group, ItemID(group) == nil { throw ValidationError("--group must be a group id: 32 hexadecimal characters.") }
        guard limit > 0 else { throw ValidationError("--limit must be at least 1.") }
    }

    /// A web map listed: from the portal or from this device.
    private struct Listed {
        var id: ItemID, title: String, owner: String?, modified: Date?, offline: Bool?, folder: String?
        /// When it was last opened here (Recent only; nil for one kept here but never opened).
        var opened: Date? = nil
    }

    func run() async throws {
        let client = options.client()
        let portalKey = options.selection.portalKey
        let listed: [Listed]
        let source: String
        do {
            if recent || (!mine && group == nil && query == nil && !client.isSignedIn) {
                source = "recent"
                listed = OfflineLibrary.recentWebMaps(RecentWebMaps().all(), root: dataDirectory.root, portalKey: portalKey).map { map in
                    Listed(id: map.id, title: map.title, owner: map.kept?.item.owner, modified: map.kept?.item.modified,
                           offline: map.kept?.item.isOfflineEnabled, folder: nil, opened: map.opened)
                }
            } else {
                let cursor: WebMapCursor
                if let group {
                    source = "group"
                    cursor = WebMapCursor(sources: [.group(PortalGroup(id: group, title: ""))])
                } else if let query {
                    source = "query"
                    cursor = .search(query)
                } else {
                    source = "mine"
                    cursor = try await client.myContent()
                }
                listed = try await client.allWebMaps(from: cursor, limit: limit).map { map in
                    Listed(id: map.item.id, title: map.item.title, owner: map.item.owner, modified: map.item.modified,
                           offline: map.item.isOfflineEnabled, folder: map.place.flatMap { $0.isEmpty ? nil : $0 })
                }
            }
        } catch {
            throw Output.fail(error, json: options.json)
        }
        // How many of each one's areas are on this device.
        let kept = OfflineLibrary.keptWebMaps(root: dataDirectory.root, portalKey: portalKey)
        let here = Dictionary(kept.map { ($0.item.id, $0.downloadedAreas) }, uniquingKeysWith: { first, _ in first })
        if options.json {
            try Output.json(JSONValue.object([
                "source": .string(source),
                "maps": .array(listed.map { map in
                    .object(["id": .string(map.id.rawValue), "title": .text(map.title), "owner": .text(map.owner), "modified": .date(map.modified), "opened": .date(map.opened),
                             "offline": map.offline.map { .bool($0) } ?? .null, "folder": .text(map.folder),
                             "downloadedAreas": .number(Double(here[map.id] ?? 0))])
                }),
            ]))
            return
        }
        guard !listed.isEmpty else {
            Output.line(source == "recent" ? "No web map was opened on \(client.host) yet, and none has areas on this device: "
                        + "mapbook --webmap ID opens one." : "No web maps.")
            return
        }
        let rows = listed.map { map in
            let marks = [map.offline == true ? "Offline" : nil, here[map.id].flatMap { $0 > 0 ? "\($0) area\($0 == 1 ? "" : "s") here" : nil }].compactMap { $0 }
            return [Output.cell(map.title, width: 40), Output.cell(map.folder.map { "\($0)/" } ?? "", width: 20), Output.cell(map.owner ?? "", width: 20),
                    (source == "recent" ? map.opened : map.modified).map { Format.date($0) } ?? "", marks.joined(separator: " · "), map.id.rawValue]
        }
        let header = ["TITLE", "FOLDER", "OWNER", source == "recent" ? "OPENED" : "MODIFIED", "", "ID"]
        for line in Output.table(header, rows) { Output.line(line) }
    }
}

/// `mapbook config`: the settings file, read and written a key at a time.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Read and change the settings in $XDG_CONFIG_HOME/mapbook/config: portal, webmap, client-id, resume-downloads, theme, graphics.",
        subcommands: [List.self, Get.self, Set.self, Unset.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every setting and its value.")
        func run() throws {
            let (settings, problems) = Settings.load()
            problems.forEach(Output.problem)
            // A key not set shows the default in effect, marked so.
            for key in settings.listedKeys {
                Output.line("\(key) = " + (settings.value(key) ?? Settings.defaultValue(key).map { "\($0)  (default)" } ?? ""))
            }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "One setting's value (nothing when unset).")
        @Argument var key: String
        func run() throws {
            guard Settings.isKnown(key) else {
                throw ValidationError("mapbook has no setting “\(key)”; it has \(Settings.keys.joined(separator: ", ")) and key.ACTION.")
            }
            if let value = Settings.load().0.value(key) { Output.line(value) }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Set a setting, keeping the rest of the file as it is.")
        @Argument var key: String
        @Argument var value: String
        func run() throws { try ConfigCommand.change(key, to: value) }
    }

    struct Unset: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unset", abstract: "Remove a setting: its default applies.")
        @Argument var key: String
        func run() throws { try ConfigCommand.change(key, to: nil) }
    }

    static func change(_ key: String, to value: String?) throws {
        let path = Settings.path()
        let old = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        do {
            let text = try Settings.text(old, setting: key, to: value)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch let problems as Settings.Problems {
            Output.standardError("mapbook: \(problems.sentences.joined(separator: " "))")
            throw ExitCode.failure
        }
    }
}
