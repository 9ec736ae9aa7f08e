import ArgumentParser
import Foundation
import Geometry
import Location
import MapbookCore
import OfflineLibrary

/// `mapbook tracks`: tracks recorded from gpsd (here, headless, or in the browser), listed and
/// exported as GPX 1.1 or GeoJSON.
struct TracksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracks",
        abstract: "Record tracks from gpsd, list them, export them as GPX or GeoJSON.",
        discussion: "Tracks are kept in the offline library's folder (tracks/), whatever the portal.",
        subcommands: [Record.self, List.self, Export.self, Remove.self])

    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "record", abstract: "Record a track from gpsd until --seconds have passed, or SIGINT or SIGTERM.")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Option(help: ArgumentHelp("Stop after this many seconds (1–604800); else at SIGINT or SIGTERM.", valueName: "N")) var seconds: Double?
        @Option(help: "What to call the track (default: its start time).") var name = ""
        @Flag(help: "Print the track recorded as JSON (described in docs/cli.md).") var json = false

        func validate() throws {
            if let seconds, !(seconds.isFinite && (1...604_800).contains(seconds)) {
                throw ValidationError("--seconds is between 1 and 604800.")
            }
        }

        func run() async throws {
            let source: LocationSource
            do throws(LocationSourceError) {
                source = try .configured()
            } catch {
                throw Output.fail(TrackError(error.sentence), json: json)
            }
            guard case .gpsd(let address) = source else {
                throw Output.fail(TrackError("The config's location is a fixed position: a track needs gpsd (GPSD_HOST, or gpsd = host:port in the config)."),
                                  json: json)
            }
            let store = TrackStore(root: dataDirectory.root)
            var track: Track
            do { track = try store.start(name: name) } catch { throw Output.fail(error, json: json) }
            let (statuses, continuation) = AsyncStream.makeStream(of: LocationStatus?.self, bufferingPolicy: .bufferingNewest(256))
            let watcher = GPSDWatcher(address: address) { continuation.yield($0) }
            let interrupt = InterruptHandler()
            interrupt.onInterrupt { continuation.finish() }
            let deadline = seconds.map { limit in Task { try? await Task.sleep(for: .milliseconds(Int(limit * 1_000))); continuation.finish() } }
            watcher.start()
            var recorder = TrackRecorder(), said: String?, problem: (any Error)?
            for await status in statuses {
                guard let status else { continue }
                // Each change of state in a sentence, for a log: a fix found, lost, gpsd gone.
                let state: String = if case .fix = status { "fix" } else { status.summary }
                if state != said, !json {
                    Output.standardError(state == "fix" ? "Recording: \(status.summary)." : "No point recorded now: \(status.summary).")
                    said = state
                }
                guard case .fix(let fix, _) = status else { continue }
                let taken = recorder.take(fix, now: Date())
                if case .failure(.full) = taken {
                    problem = TrackError("the track holds the most points a track can (\(TrackRecorder.mostPoints)); recording stopped.")
                    break
                }
                guard case .success(let point) = taken else { continue }
                do { try store.append([point], to: track.id) } catch { problem = error; break }
                track.points.append(point)
            }
            watcher.stop()
            deadline?.cancel()
            interrupt.cancel()
            let summary = "Recorded \(track.points.count) point\(track.points.count == 1 ? "" : "s"), \(DistanceUnits.forLocale().format(track.length)), "
                + "as the track \(track.id) (\(Output.cell(track.name, width: 60)))."
            if let problem { throw Output.fail(TrackError(summary + " Then: " + problem.userSentence), json: json) }
            if track.points.isEmpty {
                // Nothing to keep: no empty track is left behind to be listed.
                try? store.remove(track.id)
                let why = said.map { ": \($0)" } ?? ""
                throw Output.fail(WhereError(sentence: "No point recorded from \(source.name)\(why == ": fix" ? "" : why); no track was kept.", kind: "noFix"),
                                  json: json)
            }
            if json { return try Output.json(TracksCommand.json(track, damagedLines: 0)) }
            Output.line(summary)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the tracks, the latest first.")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Flag(help: "Print them as JSON (described in docs/cli.md).") var json = false

        func run() throws {
            let tracks: [TrackStore.Summary]
            do { tracks = try TrackStore(root: dataDirectory.root).list() } catch { throw Output.fail(error, json: json) }
            if json { return try Output.json(JSONValue.object(["tracks": .array(tracks.map { TracksCommand.json($0.track, damagedLines: $0.damagedLines) })])) }
            guard !tracks.isEmpty else { return Output.line("No tracks yet: record one with `mapbook tracks record`, or T on a map.") }
            let units = DistanceUnits.forLocale()
            let rows = tracks.map { summary in
                [summary.track.id, Output.cell(summary.track.name, width: 32), Format.date(summary.track.started), String(summary.track.points.count),
                 units.format(summary.track.length), summary.damagedLines == 0 ? "" : "\(summary.damagedLines) lines unreadable"]
            }
            for line in Output.table(["ID", "NAME", "STARTED", "POINTS", "LENGTH", ""], rows) { Output.line("  " + line) }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Print a track as GPX 1.1 or GeoJSON (or write it to a file).")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Argument(help: "The track's id (or the start of it).") var id: String
        @Option(help: "gpx or geojson.") var format: TrackFormat = .gpx
        @Option(name: [.short, .long], help: ArgumentHelp("Write to this file (replaced whole) instead of standard output.", valueName: "FILE"))
        var output: String?

        func run() throws {
            do {
                let track = try TrackStore(root: dataDirectory.root).find(id).track
                let text: String
                switch format {
                case .gpx: text = track.gpx
                case .geojson:
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    text = String(decoding: try encoder.encode(track.geoJSON), as: UTF8.self) + "\n"
                }
                if let output { try AtomicFile.write(Data(text.utf8), to: output) } else { Output.write(Data(text.utf8)) }
            } catch {
                throw Output.fail(error, json: false)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a track by its id (or the start of it).")
        @OptionGroup var dataDirectory: DataDirectoryOption
        @Argument(help: "The track's id.") var id: String

        func run() throws {
            do { try TrackStore(root: dataDirectory.root).remove(id) } catch { throw Output.fail(error, json: false) }
            Output.line("Removed the track.")
        }
    }

    /// `{"id","name","started","ended","points","length","damagedLines"}`: a track in `list --json` and `record --json`.
    static func json(_ track: Track, damagedLines: Int) -> JSONValue {
        .object(["id": .string(track.id), "name": .string(track.name), "started": .string(Track.time(track.started)),
                 "ended": track.points.last.map { .string(Track.time($0.time)) } ?? .null,
                 "points": .number(Double(track.points.count)), "length": .number(track.length.rounded()),
                 "damagedLines": .number(Double(damagedLines))])
    }
}

enum TrackFormat: String, ExpressibleByArgument, CaseIterable {
    case gpx, geojson
}
