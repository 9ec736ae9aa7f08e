import ArgumentParser
import EventLoop
import Foundation
import MapbookCore
import HTTP
import Geometry
import UserFiles

@main
struct Mapbook: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapbook",
        abstract: "Browse ArcGIS web maps and their preplanned offline map areas from a terminal.",
        discussion: """
            With no subcommand, mapbook opens the full-screen browser: the web map's overview beside \
            its preplanned map areas, to download, open and keep offline. By default it opens the \
            "Explore Maine" web map on ArcGIS Online. Press ? in the browser for its keys. Its options:
              --portal URL    the portal (default https://www.arcgis.com)
              --webmap ID     the web map's item id (default: Explore Maine)
              --data-dir DIR  the offline library (default $XDG_DATA_HOME/mapbook)
              --ascii         ASCII only, for fonts without braille or box drawing
              --plain         plain lines and typed commands, not the full screen

            Get started: run `mapbook demo` first. It serves a sample portal on this machine, so it \
            needs no internet, and shows everything mapbook does. Then open your own web map: its item \
            id ends its page's address on ArcGIS Online (…/home/item.html?id=ID), so run \
            `mapbook --webmap ID`. For items that are not public, sign in first: `mapbook auth login` \
            (docs/auth.md), or set MAPBOOK_TOKEN (a token) or MAPBOOK_API_KEY (an API key).

            Examples:
              mapbook demo
              mapbook --webmap 3bc3179f17da44a0ac0bfdac4ad15664 --ascii
              mapbook download --all --json --portal https://gis.example.org/portal

            Exit status: 0 on success, 1 when the portal answered with an error, 3 when the portal \
            could not be reached, 64 for a usage error; `download` also 128+N after signal N. \
            Settings: $XDG_CONFIG_HOME/mapbook/config (mapbook config list shows them); where the browser \
            was on each web map: $XDG_STATE_HOME/mapbook.
            """,
        version: HTTPClient.version,
        subcommands: [BrowseCommand.self, AreasCommand.self, AreaCommand.self, InfoCommand.self, DownloadCommand.self, LibraryCommand.self,
                      RemoveCommand.self, VerifyCommand.self, CacheCommand.self, BasemapsCommand.self, SearchCommand.self, ReverseCommand.self, RouteCommand.self, PinsCommand.self, IdentifyCommand.self, AuthCommand.self, MapsCommand.self, ConfigCommand.self, SnapshotCommand.self, OpenCommand.self, PackageCommand.self, PackagesCommand.self, ImportCommand.self, StageCommand.self, SamplePortalCommand.self, FeatureCommand.self, EditsCommand.self,
                      WhereCommand.self, TracksCommand.self, DemoCommand.self],
        defaultSubcommand: BrowseCommand.self)

    /// `mapbook --portal URL areas`: the browser's options given before a subcommand are the
    /// subcommand's (every one that reads a portal takes them), so the subcommand is moved first.
    /// Only the options the browser documents are looked through; anything else is left to the
    /// parser, which says what it does not know.
    static func withSubcommandFirst(_ arguments: [String]) -> [String] {
        let valued: Set = ["--portal", "--webmap", "--data-dir"], flags: Set = ["--ascii", "--plain", "--json"]
        let names = Set(configuration.subcommands.map { $0._commandName })
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            if valued.contains(argument) { i += 2; continue }
            if flags.contains(argument) || valued.contains(where: { argument.hasPrefix($0 + "=") }) { i += 1; continue }
            guard i > 0, names.contains(argument) else { return arguments }
            var moved = arguments
            moved.remove(at: i)
            return [argument] + moved
        }
        return arguments
    }

    /// `mapbook reverse -68.2,44.35`: a point with a negative longitude reads as an option to the
    /// argument parser, so it is moved after `--`, where it can only be the point. (Options that
    /// take a point parse their value unconditionally.)
    /// `mapbook route -70.26,43.66 Bangor`: the same, but two places may be points, so every place
    /// (whatever is not an option or an option's value) goes after `--`, in order.
    static func withPointLast(_ arguments: [String]) -> [String] {
        guard !arguments.contains("--") else { return arguments }
        if arguments.first == "route" { return withPlacesLast(arguments) }
        guard arguments.first == "reverse" else { return arguments }
        let isPoint = { (argument: String) in argument.hasPrefix("-") && GeoPoint(parsing: argument) != nil }
        let points = arguments.filter(isPoint)
        guard points.count == 1 else { return arguments }
        return arguments.filter { !isPoint($0) } + ["--"] + points
    }

    private static func withPlacesLast(_ arguments: [String]) -> [String] {
        guard arguments.contains(where: { $0.hasPrefix("-") && GeoPoint(parsing: $0) != nil }) else { return arguments }
        let flags: Set = ["--json", "--help", "-h"]
        var options = [arguments[0]], places: [String] = []
        var i = 1
        while i < arguments.count {
            let argument = arguments[i]
            if argument.hasPrefix("-"), GeoPoint(parsing: argument) == nil {
                options.append(argument)
                // An option's value follows it, unless it is a flag or carries its value after "=".
                if !flags.contains(argument), !argument.contains("="), i + 1 < arguments.count {
                    options.append(arguments[i + 1]); i += 1
                }
            } else {
                places.append(argument)
            }
            i += 1
        }
        return options + ["--"] + places
    }

    static func main() async {
        // `mapbook --version` alone is answered before the argument parser, which finds every
        // command's options by reflection: most of what that answer cost (docs/benchmarks.md).
        if CommandLine.arguments.dropFirst() == ["--version"] {
            print(configuration.version)
            return
        }
        // Before any task starts: an idle mapbook must not wake once a second (QuietExecutor).
        installQuietExecutor()
        // A peer closing a socket must end that transfer, not the process.
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot(withPointLast(withSubcommandFirst(Array(CommandLine.arguments.dropFirst()))))
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // A usage error under --json is also the error object on standard output, as every
            // other failure is there (the usage text still goes to standard error).
            if !(error is ExitCode), exitCode(for: error) == .validationFailure, CommandLine.arguments.dropFirst().contains("--json") {
                Output.jsonLine(["error": .object(["kind": .string("usage"), "message": .string(message(for: error))])])
            }
            exit(withError: error)
        }
    }
}
