import ArgumentParser
import Foundation
import HTTP

@main
struct Mapbook: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapbook",
        abstract: "Browse ArcGIS web maps and their preplanned offline map areas from a terminal.",
        discussion: """
            mapbook speaks the ArcGIS REST API. By default it opens the "Explore Maine" web map on \
            ArcGIS Online. Set MAPBOOK_TOKEN to an ArcGIS token to see items that are not public.

            Exit status: 0 on success, 1 when the portal answered with an error, 3 when the portal \
            could not be reached, 64 for a usage error.
            """,
        version: HTTPClient.version,
        subcommands: [BrowseCommand.self, AreasCommand.self, InfoCommand.self, DownloadCommand.self, LibraryCommand.self,
                      RemoveCommand.self, VerifyCommand.self, SnapshotCommand.self, OpenCommand.self, PackageCommand.self, SamplePortalCommand.self,
                      DemoCommand.self],
        defaultSubcommand: BrowseCommand.self)

    static func main() async {
        // A peer closing a socket must end that transfer, not the process.
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
