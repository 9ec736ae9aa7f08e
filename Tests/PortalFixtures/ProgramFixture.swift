import AppModel
import AppRuntime
import ArcGISPortal
import EventLoop
import HTTP
import Foundation
import MapSources
import MapbookCore
import OfflineLibrary
import ArcGISModel

/// Programs for tests: the real runtime against a sample or loopback portal, in a scratch library.
@UIActor
public enum ProgramFixture {
    public static let display = Display(width: 120, height: 40)

    /// A program on the web map `webMap` of the portal at `portal`, told the display's size and
    /// started with the preferences `preferences` makes of the defaults; returns once `until` holds (by default: loaded, or failed to load), or after three
    /// minutes: a machine busy with the rest of the suite can take more than one.
    public static func started(portal: URL, webMap: String = SampleFixture.webMapID, display: Display = display,
                               http: HTTPClient = HTTPClient(), cache: HTTPCache? = nil,
                               until done: @escaping (AppState) -> Bool = ProgramFixture.settledLoad,
                               preferences: (inout Preferences) -> Void = { _ in }) async -> Program {
        let library = OfflineLibrary(root: SampleFixture.scratchLibrary().root, portalKey: "tests", webMap: ItemID(webMap)!)
        let runtime = Runtime(library: library, http: http) { PortalClient(portal: portal, http: http, cache: cache) }
        var state = AppState(portalHost: "start", webMapID: ItemID(webMap)!)
        preferences(&state.preferences)
        let program = Program(state: state, runtime: runtime)
        program.send(.terminal(.resized(display)))
        program.send(.started)
        await settle(program, timeout: .seconds(180), until: done)
        return program
    }

    /// A program whose whole app is the map of `source`, drawn at the display's size (in pixels,
    /// given `pixels` with a cell size); waits for the
    /// picture up to three minutes, as `started` does (a minute was once too short beside the suite).
    public static func map(_ source: any MapSource, title: String, display: Display, pixels: PixelDrawing? = nil) async -> Program {
        let runtime = Runtime(library: SampleFixture.scratchLibrary(), map: MapStack(source), pixels: pixels) { throw CancellationError() }
        let program = Program(state: .standaloneMap(title: title, sourceName: source.name, home: source.extent), runtime: runtime)
        program.send(.terminal(.resized(display)))
        program.send(.started)
        await settle(program, timeout: .seconds(180), until: mapDrawn)
        return program
    }

    /// Loaded with its thumbnails, or failed one way or another.
    public nonisolated static func settledLoad(_ state: AppState) -> Bool {
        switch state.catalog.phase {
        case .loaded: state.catalog.thumbnails.count >= min(state.catalog.areas.count + 1, 7) || state.catalog.areas.isEmpty
        case .failed, .unreachable, .notAnswering: true
        case .loading, .starting: false
        }
    }

    /// The map is drawn for the current view, and nothing more is being drawn.
    public nonisolated static func mapDrawn(_ state: AppState) -> Bool {
        guard let map = state.map, let image = map.image else { return false }
        return !map.isDrawing && image.request.viewport == map.viewport
    }

    /// Waits until an event `matching` accepts has been sent to `program` (its transcript, which
    /// must be set, only grows: once there, the event stays there, so nothing passing can be
    /// missed between two looks, however busy the machine); nil if none came within `timeout`.
    public static func received<T>(_ program: Program, timeout: Duration = .seconds(300),
                                   _ matching: (Event) -> T?) async -> T? {
        precondition(program.transcript != nil, "set program.transcript before sending what the event answers")
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = (program.transcript ?? []).lazy.compactMap(matching).first { return found }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits (polling, with a deadline) until `done` holds; false if it never did.
    @discardableResult
    public static func settle(_ program: Program, timeout: Duration = .seconds(60), until done: (AppState) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !done(program.state) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
