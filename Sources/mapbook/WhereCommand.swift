import ArgumentParser
import Foundation
import Location
import MapbookCore
import UserFiles

/// `mapbook where`: the device's position now, from gpsd (or the config's fixed location), for a
/// script's "am I inside the area I downloaded?".
struct WhereCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "where",
        abstract: "Print the current position from gpsd (or the config's location).",
        discussion: """
            gpsd is GPSD_HOST (host:port), else the config's gpsd, else 127.0.0.1:2947; a config with location = LON,LAT \
            and no gpsd gives that position. Waits for a fix up to --wait seconds; without one, says what there is (no fix, \
            gpsd not reachable) on standard error and exits 1.
            """)

    @Option(help: ArgumentHelp("Seconds to wait for a fix (0.1–3600).", valueName: "SECONDS")) var wait = 10.0
    @Flag(help: "Print JSON (described in docs/cli.md) instead of text.") var json = false

    func validate() throws {
        guard wait.isFinite, (0.1...3_600).contains(wait) else { throw ValidationError("--wait is between 0.1 and 3600 seconds.") }
    }

    func run() async throws {
        let source: LocationSource
        do throws(LocationSourceError) {
            source = try .configured()
        } catch {
            throw Output.fail(WhereError(sentence: error.sentence, kind: "usage"), json: json)
        }
        let status = await source.firstFix(within: .milliseconds(Int(wait * 1_000)))
        guard let position = status.position else {
            throw Output.fail(WhereError(sentence: "No fix from \(source.name) within \(String(format: "%g", wait)) s: \(status.summary).", kind: "noFix"),
                              json: json)
        }
        var fix: GPSFix?, satellites: Satellites?
        if case .fix(let found, let seen) = status { fix = found; satellites = seen }
        if json {
            func number(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
            try Output.json(JSONValue.object([
                "source": .string(source.name), "status": .string(fix == nil ? "fixed" : fix?.dimension == .threeD ? "3D" : "2D"),
                "longitude": .number(position.longitude), "latitude": .number(position.latitude),
                "altitude": number(fix?.altitude), "accuracy": number(fix?.accuracy), "track": number(fix?.track), "speed": number(fix?.speed),
                "time": fix?.time.map { .string($0.formatted(.iso8601)) } ?? .null,
                "satellites": satellites.map { .object(["used": .number(Double($0.used)), "visible": .number(Double($0.visible))]) } ?? .null,
            ]))
            return
        }
        let time = fix?.time.map { "  at " + $0.formatted(.iso8601) } ?? ""
        Output.line(String(format: "%.6f,%.6f", position.longitude, position.latitude) + "  " + status.summary + time)
    }
}

extension LocationSource {
    /// The one rule (`chosen`) with this process's environment and the config file: what `where`
    /// and `tracks record` watch.
    static func configured() throws(LocationSourceError) -> LocationSource {
        let settings = Settings.load().0
        return try chosen(environment: ProcessInfo.processInfo.environment, gpsd: settings.gpsd, location: settings.location)
    }
}

/// Why `where` has no position: GPSD_HOST unusable (usage), or no fix in the time given.
struct WhereError: Error, UserFacingError {
    let sentence: String
    let kind: String
    var userMessage: String { sentence }
}
