import AppModel
import ArcGISPortal
import ArgumentParser
import Foundation
import MapRender
import MapbookCore
import OfflineLibrary
import TerminalUI

/// `mapbook` with no subcommand: the full-screen browser.
struct BrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Open the full-screen browser on the web map (the default command).",
        discussion: "Keys are listed on the ? help screen. NO_COLOR=1 turns colours off.")

    @OptionGroup var options: LibraryOptions
    @OptionGroup var display: DisplayOptions

    func run() async throws {
        let client = options.selection.client()
        try await Browser.run(host: client.host, webMap: options.selection.webMapID, library: options.library,
                              startingPhase: .loading, display: display) { client }
    }
}

/// How the browser draws.
struct DisplayOptions: ParsableArguments {
    @Flag(help: "Draw with ASCII only, for fonts without braille or box-drawing characters.")
    var ascii = false
}

/// Opens the browser on a model that connects with `connect`.
enum Browser {
    static func run(host: String, webMap: ItemID, library: OfflineLibrary, startingPhase: LoadPhase,
                    display: DisplayOptions, connect: @escaping AppModel.Connect) async throws {
        let settings = TerminalApp.Settings(ascii: display.ascii, geography: .bundledMaine())
        let model = await AppModel(state: AppState(portalHost: host, webMapID: webMap, phase: startingPhase),
                                   library: library, connect: connect)
        try await present(model, settings: settings)
    }

    /// Runs the full-screen app on `model` until the user quits, then shuts the model down: downloads
    /// under way stop with their bytes and control files saved, to resume next time.
    static func present(_ model: AppModel, settings: TerminalApp.Settings) async throws {
        do {
            try await TerminalApp.run(model, settings: settings)
            await model.shutdown()
        } catch {
            await model.shutdown()
            throw Output.fail(error, json: false)
        }
    }
}
