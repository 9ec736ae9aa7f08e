import AppModel
import ArcGISPortal
import EventLoop
import Foundation
import HTTP
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import Places
import ArcGISModel
import Geometry
import MapbookServices
import PixelRender
import TerminalCanvas

/// The map view and the overview: opening a map's basemap and operational layers, drawing and
/// identifying off the UI thread, the overview's first source that draws, the basemap gallery and
/// the basemap chosen for the web map. One map is open at a time; answers for a map closed since
/// are dropped.
@UIActor
final class MapViewHandler {
    private let library: OfflineLibrary
    private let http: HTTPClient
    private let connection: PortalConnection
    /// The map a standalone view was given (`mapbook open`): its feature layers are its operational ones.
    private let given: MapStack?
    /// Told the open map's features, for searching them.
    private let finder: PlaceFinder
    private let send: EventSink
    private let tasks: TaskTracker
    private let firstFrame: FirstFrameGate
    /// Set while the terminal shows pictures: the map view is drawn in pixels.
    private let pixels: PixelDrawing?

    /// The open map: its session, its layers once they are open, and its operational layers once
    /// those are.
    private var map: (session: Int, stack: MapStack?, operational: OpenedOperationalLayers)?
    /// The open map's last view drawn whole in pixels: a pan's picture at hand is made from it.
    private var lastInPixels: (session: Int, image: MapImage)?
    /// The overview's sources and the layers of the one that drew (new sources get new loaders).
    private var overview: (sources: [MapSourceChoice], stack: MapStack)?

    init(library: OfflineLibrary, http: HTTPClient, connection: PortalConnection, given: MapStack?, finder: PlaceFinder,
         firstFrame: FirstFrameGate = FirstFrameGate(), pixels: PixelDrawing? = nil, send: EventSink, tasks: TaskTracker) {
        self.library = library; self.http = http; self.connection = connection; self.given = given; self.finder = finder
        self.firstFrame = firstFrame; self.pixels = pixels; self.send = send; self.tasks = tasks
    }

    func open(session: Int, _ choice: MapSourceChoice) {
        map = (session, nil, OpenedOperationalLayers())
        tasks.track { [weak self] in await self?.openMap(session: session, choice) }
    }

    func openFeatureLayers(session: Int, _ layers: OperationalLayers) {
        tasks.track { [weak self] in await self?.openLayers(session: session, layers) }
    }

    func draw(session: Int, _ request: MapRequest) {
        guard let stack = drawable(session) else { return }
        if pixels?.cellSize != nil, request.mode != .ascii {
            let drawing = drawing
            let last = lastInPixels.flatMap { $0.session == session ? $0.image : nil }
            let before = pixels?.showsMovesAtOnce == true ? last : nil
            tasks.track { [weak self, send] in
                // A pan or a zoom shows the last picture moved or scaled at once; the view's own follows.
                if let before, let moved = await onWorkPool({ PixelMap.atHand(from: before, for: request) }) {
                    send(.map(.mapDrawn(session: session, moved)))
                }
                let image = await onWorkPool { await drawing(stack, request, last) }
                self?.keep(image, session: session)
                send(.map(.mapDrawn(session: session, image)))
            }
            return
        }
        tasks.track { [send] in
            // What is at hand shows at once; the whole view follows when the network has given the rest.
            if let first = await onWorkPool({ await stack.renderAtHand(request) }) { send(.map(.mapDrawn(session: session, first))) }
            send(.map(.mapDrawn(session: session, await onWorkPool { await stack.render(request) })))
        }
    }

    private func keep(_ image: MapImage, session: Int) {
        lastInPixels = image.pixels == nil || map?.session != session ? nil : (session, image)
    }

    /// How a view is drawn: in pixels while the terminal shows pictures, else in characters.
    /// `last`: the last picture in pixels, whose pixels a pan keeps where it can.
    private nonisolated var drawing: @Sendable (MapStack, MapRequest, MapImage?) async -> MapImage {
        { [pixels] stack, request, last in
            guard let cell = pixels?.cellSize, request.mode != .ascii else { return await stack.render(request) }
            return await Self.inPixels(stack, request, cell: cell, after: last)
        }
    }

    /// The view in pixels, with the names placed for them over blank cells; in characters, with
    /// the sentence why, when it cannot be drawn so (a window too large, Cairo missing).
    private nonisolated static func inPixels(_ stack: MapStack, _ request: MapRequest, cell: (width: Int, height: Int),
                                             after last: MapImage?) async -> MapImage {
        do {
            return try await PixelMap.render(stack, request, cell: cell, after: last).image(for: request)
        } catch {
            var image = await stack.render(request)
            image.problems.insert(error.userSentence, at: 0)
            return image
        }
    }

    func identify(session: Int, at point: GeoPoint, _ request: MapRequest, id: Int) {
        guard let stack = drawable(session) else { return }
        tasks.track { [send] in
            send(.map(.identified(session: session, id: id, await onWorkPool { await stack.identify(at: point, request: request) })))
        }
    }

    func close(session: Int) {
        if map?.session == session { map = nil }
        if lastInPixels?.session == session { lastInPixels = nil }
        let finder = finder
        tasks.track { await finder.mapClosed(session: session) }
    }

    func drawOverview(_ request: MapRequest, sources: [MapSourceChoice]) {
        tasks.track { [weak self] in await self?.overview(request, sources: sources) }
    }

    func loadBasemapGallery() {
        guard let client = connection.client else { return send(.map(.basemapGallery(.failure(.notConnected)))) }
        tasks.track { [send] in
            do {
                send(.map(.basemapGallery(.success(try await client.basemapGallery()))))
            } catch {
                send(.map(.basemapGallery(.failure(LoadFailure(error, host: client.host)))))
            }
        }
    }

    func rememberBasemap(_ basemap: Basemap?) {
        let library = library
        tasks.track { [send] in
            do { try await onWorkPool { try library.saveChosenBasemap(basemap) } } catch {
                send(.map(.basemapNotKept("The basemap choice could not be kept: \(error.userSentence)")))
            }
        }
    }

    // MARK: -

    private func openMap(session: Int, _ choice: MapSourceChoice) async {
        do {
            let (library, http, given, client) = (library, http, given, connection.client)
            let stack = try await onWorkPool {
                do {
                    return try await Self.stack(for: choice, given: given, library: library, http: http, client: client)
                } catch where choice.isBasemap {
                    // A basemap whose host does not answer (or that cannot be drawn) leaves the web
                    // map's layers drawn over the world outline, the reason in the footer.
                    return MapStack.worldOutline(problems: [error.userSentence])
                }
            }
            // A map closed (or replaced) while its source opened keeps no loader.
            guard map?.session == session else { return }
            map?.stack = stack
            send(.map(.mapOpened(session: session, MapSourceSummary(layerNames: stack.layerNames, extent: stack.extent,
                                                               problems: stack.problems, legend: stack.legend()))))
            if !stack.features.isEmpty || !stack.notDrawn.isEmpty {
                use(OpenedOperationalLayers(features: stack.features, listedOnly: stack.notDrawn), session: session)
            }
        } catch {
            guard !Task.isCancelled else { return }
            send(.map(.mapOpenFailed(session: session, error.userSentence)))
        }
    }

    /// The open map of `session` with its operational layers, once its basemap is open.
    private func drawable(_ session: Int) -> MapStack? {
        guard let map, map.session == session, var stack = map.stack else { return nil }
        // The operational layers as opened (a given map's own were taken over by `use`); those that
        // could not be opened are named in every drawing's footer, not only the first.
        stack.features = []
        map.operational.add(to: &stack)
        return stack
    }

    private func openLayers(session: Int, _ layers: OperationalLayers) async {
        let (library, client) = (library, connection.client)
        let opened = await onWorkPool { await OperationalLayerLoaders.open(layers, library: library, client: client) }
        use(opened, session: session)
    }

    /// The map's operational layers, listed with their legends (a map service's pictures under the features).
    private func use(_ opened: OpenedOperationalLayers, session: Int) {
        guard map?.session == session else { return }
        map?.operational = opened
        var legend: [String: [LegendEntry]] = [:]
        for loader in opened.features { legend[loader.title] = MapLegend.entries(for: loader.info) }
        let images = opened.images.map(\.layer)
        for layer in images where !layer.legend.isEmpty { legend[layer.title] = layer.legend }
        var stacked = MapStack(layers: [])
        stacked.features = opened.features
        stacked.images = opened.images
        let hidden = stacked.initiallyHidden
        send(.map(.featureLayersOpened(session: session, FeatureLayersSummary(titles: images.map(\.title) + opened.features.map(\.title),
                                                                         hidden: hidden, legend: legend, listedOnly: opened.listedOnly,
                                                                         problems: opened.problems))))
        // Its stored layers' features, searchable by display field while it is open.
        let (finder, loaders) = (finder, opened.features)
        tasks.track {
            let index = await onWorkPool {
                var names: [PlaceName] = []
                for loader in loaders {
                    guard let features = await loader.storedFeatures else { continue }
                    names += PlaceIndex.names(ofFeatures: features, info: loader.info, layer: loader.title)
                }
                return PlaceIndex(places: names)
            }
            await finder.mapOpened(session: session, features: index)
        }
    }

    private func overview(_ request: MapRequest, sources: [MapSourceChoice]) async {
        await firstFrame.wait()
        if let overview, overview.sources == sources {
            let (stack, drawing) = (overview.stack, drawing)
            send(.map(.overviewDrawn(await onWorkPool { await drawing(stack, request, nil) })))
            return
        }
        // The first source that opens and draws something; none: the pane keeps the outline.
        let (library, http, client) = (library, http, connection.client)
        for source in sources {
            guard let stack = try? await onWorkPool({
                try await Self.stack(for: source, given: nil, library: library, http: http, client: client)
            }) else {
                continue
            }
            let drawing = drawing
            let image = await onWorkPool { await drawing(stack, request, nil) }
            guard image.report.featuresDrawn + image.report.rasterTilesDrawn > 0 else { continue }
            overview = (sources, stack)
            send(.map(.overviewDrawn(image)))
            return
        }
        send(.map(.overviewDrawn(nil)))
    }

    private nonisolated static func stack(for choice: MapSourceChoice, given: MapStack?, library: OfflineLibrary,
                                          http: HTTPClient, client: PortalClient?) async throws -> MapStack {
        switch choice {
        case .package(let area, let package):
            return MapStack(try PackageMapSource(path: library.packagePath(area, package)))
        case .basemap(let basemap):
            return try await OperationalLayerLoaders.basemap(basemap, client: client, http: http, cacheDirectory: library.tileCacheDirectory)
        case .outline:
            return MapStack.worldOutline()
        case .given:
            guard let given else { throw MapSourceError("No map was given to open.") }
            return given
        }
    }
}

private extension MapSourceChoice {
    var isBasemap: Bool { if case .basemap = self { true } else { false } }
}

extension MapViewHandler {
    /// Does the work `MapFeature` asks for.
    func perform(_ effect: MapFeature.Effect) {
        switch effect {
        case .openMap(let session, let choice): open(session: session, choice)
        case .openFeatureLayers(let session, let layers): openFeatureLayers(session: session, layers)
        case .drawMap(let session, let request): draw(session: session, request)
        case .identify(let session, let point, let request, let id): identify(session: session, at: point, request, id: id)
        case .closeMap(let session): close(session: session)
        case .drawOverview(let request, let sources): drawOverview(request, sources: sources)
        case .loadBasemapGallery: loadBasemapGallery()
        case .rememberBasemap(let basemap): rememberBasemap(basemap)
        case .watchLocation, .startTrack, .appendToTrack, .endTrack: return  // `Runtime.perform` hands them to its `LocationHandler`
        }
    }
}
