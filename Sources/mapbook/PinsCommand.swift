import ArgumentParser
import Foundation
import MapbookCore
import MapbookServices
import OfflineLibrary
import Geometry
import UserFiles

/// `mapbook pins`: places marked by the user, kept in the data directory, any portal.
struct PinsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pins",
        abstract: "Your own pins: add, list, remove, export as GeoJSON and import GeoJSON points.",
        discussion: "Pins are kept in the offline library's folder (pins.json), whatever the portal.",
        subcommands: [Add.self, List.self, Remove.self, Share.self, Export.self, Import.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a pin.")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Option(parsing: .unconditional, help: ArgumentHelp("Where: longitude, latitude (such as -68.2,44.35).", valueName: "LON,LAT"))
        var at: String
        @Option(help: "What to call it.") var title: String
        @Option(help: "A note.") var note: String?
        @Option(help: "A link: an http or https address.") var link: String?
        @Flag(name: .long, help: "Print the pin as JSON.") var json = false

        func validate() throws {
            guard GeoPoint(parsing: at) != nil else { throw ValidationError(GeoPoint.notAPoint(at, what: "--at")) }
        }

        func run() throws {
            do {
                let pin = try PinStore(root: dataDirectory.root).add(title: title, note: note, link: link, at: GeoPoint(parsing: at)!)
                if json { try Output.json(PinStore.geoJSON([pin])["features"]?.array.first ?? .null) } else {
                    Output.line("Pinned \(Output.cell(pin.title)) (\(pin.id)).")
                }
            } catch {
                throw Output.fail(error, json: json)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the pins.")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Flag(name: .long, help: "Print them as GeoJSON.") var json = false

        func run() throws {
            let pins: [Pin]
            do { pins = try PinStore(root: dataDirectory.root).load() } catch { throw Output.fail(error, json: json) }
            if json { return try Output.json(PinStore.geoJSON(pins)) }
            guard !pins.isEmpty else { return Output.line("No pins yet: add one with `mapbook pins add --at LON,LAT --title T`.") }
            let rows = pins.map { pin in
                [Output.cell(pin.title, width: 32), GeoPoint(longitude: pin.longitude, latitude: pin.latitude).written(), Format.date(pin.created),
                 Output.cell(pin.note ?? "", width: 40), pin.id]
            }
            for line in Output.table(["TITLE", "LON,LAT", "CREATED", "NOTE", "ID"], rows) { Output.line("  " + line) }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a pin by its id (or the start of it).")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Argument(help: "The pin's id.") var id: String

        func run() throws {
            do {
                guard try PinStore(root: dataDirectory.root).remove(id) else {
                    throw PinError("No pin has the id “\(Output.cell(id, width: 40))”.")
                }
                Output.line("Removed the pin.")
            } catch {
                throw Output.fail(error, json: false)
            }
        }
    }

    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "share", abstract: "Make a pin a feature of a downloaded area's layer (its title in the layer's display field); a sync sends it.")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "The pin's id (or the start of it).") var id: String
        @Option(help: ArgumentHelp("The downloaded map area (item id or title).", valueName: "AREA")) var area: String
        @Option(help: ArgumentHelp("The layer, by its title in the area.", valueName: "NAME")) var layer: String
        @OptionGroup var values: FeatureCommand.Values
        @Flag(help: "Print the saved edit as JSON (described in docs/cli.md).") var json = false

        func run() async throws {
            try await FeatureCommand.save(json: json) {
                let matching = try PinStore(root: library.dataDirectory.root).load().filter { $0.id.hasPrefix(id) }
                guard matching.count == 1, let pin = matching.first else {
                    throw PinError(matching.isEmpty ? "No pin has the id “\(Output.cell(id, width: 40))”." : "Several pins' ids start with “\(Output.cell(id, width: 40))”; give more of it.")
                }
                let downloaded = try library.downloadedArea(named: area)
                let editor = try await AreaEditor.open(area: downloaded.area.item.id, title: downloaded.area.item.title, library: library.library,
                                                       webMapLayers: downloaded.webMapLayers)
                return try editor.add(pinTitled: pin.title, at: GeoPoint(longitude: pin.longitude, latitude: pin.latitude), to: layer, values: values.pairs)
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Print the pins as a GeoJSON FeatureCollection (RFC 7946).")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Flag(name: .long, help: "GeoJSON (the only form so far; accepted for scripts that name it).") var geojson = false

        func run() throws {
            do { try Output.json(PinStore.geoJSON(try PinStore(root: dataDirectory.root).load())) } catch { throw Output.fail(error, json: false) }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "import", abstract: "Add the points of a GeoJSON file as pins; say which features were left out.")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Argument(help: "A GeoJSON Feature or FeatureCollection of points (properties: title or name, note, link).") var file: String

        func run() throws {
            let leftOut: Int
            do {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw PinError("\(Output.cell(file, width: 200)) cannot be read.")
                }
                let (added, problems) = try PinStore(root: dataDirectory.root).importGeoJSON(data)
                leftOut = problems.count
                problems.forEach(Output.problem)
                Output.line("Added \(added) pin\(added == 1 ? "" : "s")\(problems.isEmpty ? "" : "; \(problems.count) left out").")
            } catch {
                throw Output.fail(error, json: false)
            }
            // The pins added are kept; a feature left out is a failure a script must see.
            if leftOut > 0 { throw ExitCode.failure }
        }
    }
}
