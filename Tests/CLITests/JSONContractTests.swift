import ArgumentParser
import Foundation
@testable import mapbook
import PortalFixtures
import SamplePortal
import Testing

/// docs/cli.md's JSON contract, over every command that takes `--json`: what it prints parses (one
/// document, or JSON lines for the commands that report as they go), a failure is the error object
/// whose kind gives the exit status, and a usage error is that object too (kind `usage`, exit 64).
@Suite("the --json contract of every command")
struct JSONContractTests {
    /// One run of a command: its arguments (`PORTAL`, `DATA`, `PACKAGE` and `FILE` filled in), whether it
    /// prints JSON lines, and the exit status expected.
    struct Run: Sendable, CustomStringConvertible {
        let command: String
        let arguments: [String]
        var lines = false
        var status: Int32 = 0
        /// The status answers a question (signed in? edits waiting?) rather than reporting a failure.
        var statusIsAnAnswer = false

        var description: String { command }
    }

    /// In order: the download gives the later runs a library and a package.
    static let runs: [Run] = [
        Run(command: "demo", arguments: ["demo", "--json"]),
        Run(command: "areas", arguments: ["areas", "--portal", "PORTAL"]),
        Run(command: "info", arguments: ["info", SampleFixture.bangorID, "--portal", "PORTAL"]),
        Run(command: "download", arguments: ["download", "Bangor", "--portal", "PORTAL", "--data-dir", "DATA"], lines: true),
        Run(command: "library", arguments: ["library", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "verify", arguments: ["verify", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "area new", arguments: ["area", "new", "--extent=-68.3,44.3,-68.2,44.4", "--max-level", "12", "--estimate-only",
                                             "--portal", "PORTAL", "--data-dir", "DATA"], lines: true),
        Run(command: "area cancel", arguments: ["area", "cancel", "No such area", "--portal", "PORTAL", "--data-dir", "DATA"], status: 1),
        Run(command: "cache info", arguments: ["cache", "info", "--data-dir", "DATA"]),
        Run(command: "basemaps", arguments: ["basemaps", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "search", arguments: ["search", "Bangor", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "reverse", arguments: ["reverse", "-68.77,44.80", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "route", arguments: ["route", "Portland", "Bangor", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "identify", arguments: ["identify", "--area", "Bangor", "--at", "-68.77,44.80", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "pins add", arguments: ["pins", "add", "--at", "-68.77,44.80", "--title", "Trailhead", "--data-dir", "DATA"]),
        Run(command: "pins list", arguments: ["pins", "list", "--data-dir", "DATA"]),
        Run(command: "pins share", arguments: ["pins", "share", "nosuchpin", "--area", "Bangor", "--layer", "Places", "--portal", "PORTAL", "--data-dir", "DATA"],
            status: 1),
        Run(command: "feature add", arguments: ["feature", "add", "--area", "Bangor", "--layer", "Places", "--at", "-68.77,44.80", "--set", "name=Kenduskeag",
                                                "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "feature update", arguments: ["feature", "update", "--area", "Bangor", "--layer", "Places", "--id", "999999", "--set", "name=x",
                                                   "--portal", "PORTAL", "--data-dir", "DATA"], status: 1),
        Run(command: "feature delete", arguments: ["feature", "delete", "--area", "Bangor", "--layer", "Places", "--id", "999999",
                                                   "--portal", "PORTAL", "--data-dir", "DATA"], status: 1),
        Run(command: "edits list", arguments: ["edits", "list", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "edits show", arguments: ["edits", "show", "1", "--area", "Bangor", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "edits diff", arguments: ["edits", "diff", "--portal", "PORTAL", "--data-dir", "DATA"], status: 5, statusIsAnAnswer: true),
        Run(command: "edits sync", arguments: ["edits", "sync", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "auth status", arguments: ["auth", "status", "--portal", "PORTAL"], status: 4, statusIsAnAnswer: true),
        Run(command: "maps", arguments: ["maps", "--query", "Maine", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "package inspect", arguments: ["package", "inspect", "PACKAGE"]),
        Run(command: "package tile", arguments: ["package", "tile", "PACKAGE", "0", "0", "0"]),
        Run(command: "packages list", arguments: ["packages", "list", "--data-dir", "DATA"]),
        Run(command: "packages available", arguments: ["packages", "available", "--portal", "PORTAL", "--data-dir", "DATA"]),
        Run(command: "import", arguments: ["import", "FILE", "--data-dir", "DATA"], status: 1),
        Run(command: "stage", arguments: ["stage", "--webmap", SampleFixture.webMapID, "Bangor", "--to", "DATA/mirror", "--portal", "PORTAL"], lines: true),
        // No gpsd on the port GPSD_HOST names (below): no fix.
        Run(command: "where", arguments: ["where", "--wait", "1"], status: 1),
        Run(command: "tracks record", arguments: ["tracks", "record", "--seconds", "1", "--data-dir", "DATA"], status: 1),
        Run(command: "tracks list", arguments: ["tracks", "list", "--data-dir", "DATA"]),
    ]

    /// Every command whose usage offers `--json`, as its words after `mapbook`.
    static func commandsTakingJSON(_ command: ParsableCommand.Type = Mapbook.self, path: [String] = []) -> [String] {
        let subcommands = command.configuration.subcommands
        guard subcommands.isEmpty else {
            return subcommands.flatMap { commandsTakingJSON($0, path: path + [$0._commandName]) }
        }
        let usage = command.helpMessage(columns: 10_000).split(separator: "\n").first { $0.hasPrefix("USAGE:") } ?? ""
        return usage.contains("--json") ? [path.joined(separator: " ")] : []
    }

    /// A new command that takes `--json` is checked here too: it must be added to `runs`.
    @Test func everyCommandTakingJSONIsRun() {
        #expect(Set(Self.commandsTakingJSON()) == Set(Self.runs.map(\.command)))
    }

    @Test(.timeLimit(.minutes(4)))
    func everyCommandPrintsWhatTheContractSays() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-json-contract-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let notAPackage = data + "/notes.txt"
        try Data("not a package".utf8).write(to: URL(fileURLWithPath: notAPackage))
        let environment = ["XDG_CACHE_HOME": data + "/cache", "GPSD_HOST": "127.0.0.1:1"]
        for run in Self.runs {
            let package = Self.firstFile(endingWith: ".vtpk", under: data) ?? "none"
            let arguments = run.arguments.map { word in
                word.replacingOccurrences(of: "PORTAL", with: portal.baseURL.absoluteString).replacingOccurrences(of: "DATA", with: data)
                    .replacingOccurrences(of: "PACKAGE", with: package).replacingOccurrences(of: "FILE", with: notAPackage)
            } + ["--json"]
            // A bound for a hang, not a timing: a cold `demo` (the sample content built first) beside the
            // whole suite on two cores took over a minute twice.
            let result = try await CLI.runAsync(arguments, environment: environment, killedAfter: .seconds(180))
            #expect(result.status == run.status, "\(run): \(result.stderr)")
            let documents = Self.documents(result.stdout, lines: run.lines)
            #expect(!documents.isEmpty, "\(run) printed no JSON: \(result.stdout.prefix(300))")
            if result.status != 0, !run.statusIsAnAnswer {
                // The command's own failure, or (import) a file's among the results.
                let error = documents.last.flatMap(Self.firstError)
                let kind = error?["kind"] as? String ?? "none"
                #expect(error?["message"] is String && Output.exitStatus(ofKind: kind).rawValue == result.status,
                        "\(run) failed (\(result.status)) with kind \(kind)")
            }
        }
    }

    /// A bad option is the error object on standard output, kind `usage`, exit 64. One command at
    /// a time: two dozen started at once would crowd out the timing of every other test.
    @Test func aUsageErrorIsTheErrorObject() async throws {
        for run in Self.runs {
            let result = try await CLI.runAsync(Array(run.arguments.prefix(run.command.split(separator: " ").count)) + ["--json", "--no-such-option"])
            #expect(result.status == 64, "\(run)")
            let error = Self.documents(result.stdout, lines: true).first?["error"] as? [String: Any]
            #expect(error?["kind"] as? String == "usage" && (error?["message"] as? String)?.isEmpty == false, "\(run): \(result.stdout)")
            #expect(result.stderr.contains("Usage:"), "\(run): the usage text still goes to standard error")
        }
    }

    /// The JSON objects printed: the one document, or each line (nil for one that does not parse).
    static func documents(_ output: String, lines: Bool) -> [[String: Any]] {
        let texts = lines ? output.split(separator: "\n").map(String.init) : [output]
        var documents: [[String: Any]] = []
        for text in texts {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return [] }
            documents.append(object)
        }
        return documents
    }

    /// The first `error` object found in a document, depth first.
    static func firstError(in value: Any) -> [String: Any]? {
        if let object = value as? [String: Any] {
            if let error = object["error"] as? [String: Any] { return error }
            return object.keys.sorted().lazy.compactMap { firstError(in: object[$0]!) }.first
        }
        return (value as? [Any])?.lazy.compactMap(firstError).first
    }

    static func firstFile(endingWith suffix: String, under folder: String) -> String? {
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return files.first { $0.hasSuffix(suffix) }.map { folder + "/" + $0 }
    }
}
