import Foundation
import HTTP
import MapRender
import MapbookCore
import TerminalCanvas
import ArcGISModel
import Geometry

/// The layers of one map, bottom first, each with its loader and opacity: a web map's basemap
/// (several services, reference layers on top) or a single package.
public struct MapStack: Sendable {
    public struct Layer: Sendable {
        public let loader: TileLoader
        public let opacity: Double
        /// A basemap's reference layer (labels, boundaries): drawn over the operational layers.
        public let isReference: Bool

        public init(loader: TileLoader, opacity: Double = 1, isReference: Bool = false) {
            self.loader = loader; self.opacity = opacity; self.isReference = isReference
        }
    }

    /// A layer a server draws, and where it lies in the stack.
    public struct StackedImage: Sendable {
        public let layer: ServiceImageLayer
        /// How many of the operational feature layers lie under it: a map service listed between two
        /// feature layers is drawn between them.
        public let featuresBelow: Int
        /// One of the basemap's layers: under every feature, listed with the basemap.
        public let isBasemap: Bool

        public init(_ layer: ServiceImageLayer, featuresBelow: Int = 0, isBasemap: Bool = false) {
            self.layer = layer; self.featuresBelow = featuresBelow; self.isBasemap = isBasemap
        }
    }

    public let layers: [Layer]
    /// Feature layers that stand in for a basemap (the world outline), under the operational ones.
    public var baseFeatures: [FeatureLayerLoader] = []
    /// The web map's operational feature layers, bottom first.
    public var features: [FeatureLayerLoader] = []
    /// The layers a server draws (map services), bottom first, each where it lies among the features.
    public var images: [StackedImage] = []
    /// Layers that could not be opened or drawn, one sentence each: the footer names them.
    public var problems: [String]
    /// Layers listed but not drawn, each a line saying why: the layer list shows them.
    public var notDrawn: [String] = []

    public init(layers: [Layer], problems: [String] = []) { self.layers = layers; self.problems = problems }

    /// A view moved draws what it shares with the last one exactly as the last one drew it: not
    /// so with a server's pictures, which are made for one view (their names placed for it).
    public var drawsAlikeWhenMoved: Bool { images.isEmpty }

    /// The layers the map says to hide at first (`visibility: false`): the one rule for the
    /// browser's first view, `snapshot` and `identify`.
    public var initiallyHidden: [String] {
        (baseFeatures + features).filter { !$0.initiallyVisible }.map(\.title) + images.map(\.layer).filter { !$0.initiallyVisible }.map(\.title)
    }

    /// One source alone (a package's style problem, if it has one, as its problem).
    public init(_ source: any MapSource) {
        self.init(layers: [Layer(loader: TileLoader(source: source))],
                  problems: (source as? PackageMapSource)?.styleProblem.map { [$0] } ?? [])
    }

    /// The names the layer list offers: one source's own layers; for several, each raster service
    /// by its name and each vector service's source layers.
    /// (The operational layers are listed apart, above these.)
    public var layerNames: [String] {
        let pictures = images.filter(\.isBasemap).map(\.layer.title)
        guard !layers.isEmpty else { return baseFeatures.map(\.title) + pictures }
        guard layers.count > 1 || !pictures.isEmpty else { return layers.first?.loader.source.layerNames ?? [] }
        return layers.flatMap { layer in layer.loader.source.isVector ? layer.loader.source.style.sourceLayers : [layer.loader.source.name] }
            + pictures
    }

    /// The legends of the listed layers: a vector layer's by source layer (its colours as at style
    /// zoom `zoom`), a raster service's or a map service's by its name (its own legend, when it has one).
    public func legend(zoom: Double = 10) -> [String: [LegendEntry]] {
        let pictures = images.filter { $0.isBasemap && !$0.layer.legend.isEmpty }
        return layers.reduce(into: Dictionary(pictures.map { ($0.layer.title, $0.layer.legend) }) { first, _ in first }) { legend, layer in
            let source = layer.loader.source
            if source.isVector {
                legend.merge(MapLegend.entries(for: source.style, zoom: zoom)) { first, _ in first }
            } else if !source.legend.isEmpty {
                legend[layers.count > 1 ? source.name : MapComposer.rasterLayerName] = source.legend
            }
        }
    }


    /// What the view shows at first: the bottom layer's extent.
    public var extent: GeoExtent? { layers.first?.loader.source.extent }

    /// Loads every layer's tiles (together) and draws them. The drawing happens on the caller's
    /// task, outside the loaders, so a long draw never holds up tile loading.
    public func render(_ request: MapRequest) async -> MapImage {
        let (loaded, featureResults, imageResults) = await load(request)
        return compose(request, loaded, featureResults, imageResults)
    }

    /// Tiles, features and servers' pictures, waited for together: a drawing takes as long as the slowest.
    private func load(_ request: MapRequest) async
        -> ([LoadedTiles], [(layer: PreparedFeatureLayer?, problem: String?)], [(image: PlacedImage?, problem: String?)]) {
        async let tiles = layers.concurrentMap { await $0.loader.tiles(for: request.viewport, columns: request.columns, rows: request.rows) }
        async let features = shownFeatures(request).concurrentMap { await $0.features(for: request.viewport, columns: request.columns, rows: request.rows) }
        async let pictures = shownImages(request).concurrentMap { await $0.layer.image(for: request.viewport, columns: request.columns, rows: request.rows) }
        return await (tiles, features, pictures)
    }

    /// The view drawn at once from what is at hand — tiles in memory (a coarser one where the view's
    /// is still on its way), the features and pictures of the last views — while the rest comes from
    /// the network; nil when nothing is on its way, so `render` alone draws it as soon, and when
    /// nothing is at hand, so the last picture stays until the whole one comes.
    public func renderAtHand(_ request: MapRequest) async -> MapImage? {
        let (columns, rows) = (request.columns, request.rows)
        let tiles = await layers.concurrentMap { await $0.loader.atHand(for: request.viewport, columns: columns, rows: rows) }
        let features = await shownFeatures(request).concurrentMap { await $0.atHand(for: request.viewport, columns: columns, rows: rows) }
        let pictures = await shownImages(request).concurrentMap { await $0.layer.atHand(for: request.viewport, columns: columns, rows: rows) }
        guard tiles.contains(where: \.waits) || features.contains(where: \.waits) || pictures.contains(where: \.waits),
              layers.isEmpty || tiles.contains(where: { !$0.tiles.isEmpty }) else { return nil }
        var image = compose(request, tiles.map { LoadedTiles(tiles: $0.tiles, problems: []) }, features.map { ($0.layer, nil) },
                            pictures.map { ($0.image, nil) })
        image.isAtHand = true
        return image
    }

    private func shownFeatures(_ request: MapRequest) -> [FeatureLayerLoader] {
        (baseFeatures + features).filter { !request.hiddenLayers.contains($0.title) }
    }

    private func shownImages(_ request: MapRequest) -> [StackedImage] {
        images.filter { !request.hiddenLayers.contains($0.layer.title) }
    }

    /// One picture of the view from what was loaded for it, with the sentences for what was not.
    private func compose(_ request: MapRequest, _ loaded: [LoadedTiles], _ featureResults: [(layer: PreparedFeatureLayer?, problem: String?)],
                         _ imageResults: [(image: PlacedImage?, problem: String?)]) -> MapImage {
        var frame = Frame(width: request.columns, height: request.rows)
        let drawing = DrawList(self, request, loaded, featureResults, imageResults)
        let (names, report) = MapComposer.compose(drawing.scenes, images: drawing.images, features: drawing.features,
                                                  referenceFrom: drawing.referenceFrom, into: &frame, rect: frame.bounds)
        return MapImage(picture: MapPicture(frame: frame, names: names, colors: request.colors), request: request, report: report,
                        problems: drawing.problems(report))
    }

    /// Loads the view's tiles, features and pictures as `render` does and draws them onto
    /// `surface`, whose top left `projection` places: the pixel map's drawing. `request` sizes the
    /// loading in the surface's dots (one a pixel: half its width in columns, a quarter of its height in rows).
    public func render<Surface: MapSurface>(_ request: MapRequest, onto surface: inout Surface,
                                            projection: MapProjection) async -> (names: LabelPass, report: MapDrawReport, problems: [String]) {
        let (loaded, featureResults, imageResults) = await load(request)
        let drawing = DrawList(self, request, loaded, featureResults, imageResults)
        let (names, report) = MapComposer.compose(drawing.scenes, images: drawing.images, features: drawing.features,
                                                  referenceFrom: drawing.referenceFrom, onto: &surface, projection: projection)
        return (names, report, drawing.problems(report))
    }

    /// What one drawing of the stack draws, from what was loaded for it, and the sentences for what was not.
    private struct DrawList {
        var scenes: [MapScene]
        var images: [PlacedImage]
        var features: [FeatureLayerScene]
        var referenceFrom: Int?
        private var loadProblems: [String]

        func problems(_ report: MapDrawReport) -> [String] {
            var problems = loadProblems
            if report.damagedFeatures > 0 {
                problems.append("\(report.damagedFeatures) feature\(report.damagedFeatures == 1 ? "" : "s") with broken geometry left out.")
            }
            return problems
        }

        init(_ stack: MapStack, _ request: MapRequest, _ loaded: [LoadedTiles], _ featureResults: [(layer: PreparedFeatureLayer?, problem: String?)],
             _ imageResults: [(image: PlacedImage?, problem: String?)]) {
            let (layers, baseFeatures) = (stack.layers, stack.baseFeatures)
            let shown = stack.shownFeatures(request), shownImages = stack.shownImages(request)
            var featureScenes: [FeatureLayerScene] = []
            var featureProblems: [String] = []
            // How many scenes the first n shown layers gave (a layer with nothing loaded gives none).
            var scenesOfFirst = [0]
            for (loader, result) in zip(shown, featureResults) {
                defer { scenesOfFirst.append(featureScenes.count) }
                if let layer = result.layer {
                    featureScenes.append(FeatureLayerScene(layer: layer, opacity: loader.opacity))
                    if layer.withoutGeometry > 0 {
                        featureProblems.append("\(TerminalText.sanitizedLine(loader.title, maxLength: 60)): \(layer.withoutGeometry) feature\(layer.withoutGeometry == 1 ? "" : "s") without a geometry left out.")
                    }
                }
                if let problem = result.problem { featureProblems.append(problem) }
                if let problem = loader.info.rendererProblem { featureProblems.append(problem) }
            }
            let single = layers.count == 1
            let layerScenes = zip(layers, loaded).map { layer, tiles in
                let source = layer.loader.source
                var hidden = request.hiddenLayers
                // Several layers: a raster service is switched off by its own name.
                if !single, !source.isVector, hidden.contains(source.name) { hidden.insert(MapComposer.rasterLayerName) }
                return MapScene(viewport: request.viewport, mode: request.mode, style: source.style, tiles: tiles.tiles,
                                tileSize: source.tileSize, hiddenLayers: hidden, attribution: source.attribution,
                                colors: request.colors, lightTheme: request.lightTheme, opacity: layer.opacity)
            }
            // No tiles at all (the world outline alone): one empty scene sets the view for the features.
            var drawn = layerScenes.isEmpty ? [MapScene(viewport: request.viewport, mode: request.mode, tiles: [], colors: request.colors,
                                                              lightTheme: request.lightTheme)] : layerScenes
            // A map service's credit joins the basemap's.
            let credits = ([drawn[0].attribution] + shownImages.map(\.layer.attribution)).compactMap { $0 }
                .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            drawn[0].attribution = credits.isEmpty ? nil : credits.joined(separator: " | ")
            // A picture lies over the shown feature layers under it: the base ones, and the operational
            // ones below it in the web map.
            let shownBase = baseFeatures.filter { !request.hiddenLayers.contains($0.title) }.count
            let placed = zip(shownImages, imageResults).compactMap { stacked, result -> PlacedImage? in
                guard var image = result.image else { return nil }
                let shownBelow = shownBase + stack.features.prefix(stacked.featuresBelow).filter { !request.hiddenLayers.contains($0.title) }.count
                image.featuresBelow = stacked.isBasemap ? 0 : scenesOfFirst[min(shownBelow, scenesOfFirst.count - 1)]
                return image
            }
            var problems = stack.problems + imageResults.compactMap(\.problem) + featureProblems
            for sentence in loaded.flatMap(\.problems) where !problems.contains(sentence) { problems.append(sentence) }
            scenes = drawn; images = placed; features = featureScenes
            referenceFrom = layers.firstIndex(where: \.isReference)
            loadProblems = problems
        }
    }
}

extension MapStack {
    /// The world outline alone, standing in for a basemap mapbook cannot draw: `countries` as a
    /// light land fill with grey borders, over the neutral no-data grey; `problems` say why.
    public static func outline(_ countries: [GeoFeature], problems: [String] = []) -> MapStack {
        let land = FeatureSymbol(kind: .fill(style: "esriSFSSolid"), color: SymbolColor(r: 236, g: 234, b: 222),
                                 outline: SymbolColor(r: 150, g: 150, b: 150))
        let info = FeatureLayerInfo(name: outlineTitle, geometryType: .polygon, fields: [FeatureField(name: "name", type: "esriFieldTypeString")],
                                    displayField: "name", renderer: FeatureRenderer(kind: .simple, classes: [], defaultSymbol: land))
        let features = countries.map { country in
            LayerFeature(geometry: country.geometry, attributes: country.property("name").map { ["name": $0] } ?? [:])
        }
        var stack = MapStack(layers: [], problems: problems)
        stack.baseFeatures = [FeatureLayerLoader(title: outlineTitle, info: info, features: features)]
        return stack
    }

    /// The outline's name in the layer list.
    public static let outlineTitle = "World outline"

    /// Opens a layer the server draws for each view (a map service): given by the caller, which
    /// knows the portal that vouches for the service's host.
    public typealias ServiceImageOpener = @Sendable (WebMapLayer) async throws -> ServiceImageLayer

    /// Opens the basemap's layers that mapbook draws (together, kept in order): tiled services as
    /// tiles; map services, and image services that are not tiled, through `openImage`. Layers it
    /// cannot draw or open are named in `problems`; with none open it throws the first layer's error.
    public static func connect(_ basemap: Basemap, http: HTTPClient, cacheDirectory: String?,
                               openImage: ServiceImageOpener? = nil) async throws -> MapStack {
        let drawable = basemap.drawableLayers
        let opened = await drawable.concurrentMap { layer -> Result<BasemapPart, any Error> in
            do { return .success(try await openPart(layer, http: http, cacheDirectory: cacheDirectory, openImage: openImage)) } catch {
                return .failure(error)
            }
        }
        var layers: [Layer] = []
        var images: [StackedImage] = []
        var problems = basemap.undrawableLayers.map(TileServiceSource.cannotDraw)
        var firstError: (any Error)?
        for (layer, result) in zip(drawable, opened) {
            switch result {
            case .success(.tiles(let source)):
                layers.append(Layer(loader: TileLoader(source: source), opacity: layer.opacity, isReference: layer.isReference))
            case .success(.image(let picture)):
                images.append(StackedImage(picture, isBasemap: true))
            case .failure(let error):
                firstError = firstError ?? error
                problems.append("\(TileServiceSource.layerName(layer)) could not be opened: \(error.userSentence)")
            }
        }
        guard !layers.isEmpty || !images.isEmpty else {
            if let firstError { throw firstError }
            throw MapSourceError(problems.first ?? "This basemap has no layer mapbook can draw.")
        }
        var stack = MapStack(layers: layers, problems: problems)
        stack.images = images
        return stack
    }

    private enum BasemapPart: Sendable {
        case tiles(TileServiceSource)
        case image(ServiceImageLayer)
    }

    /// A map service is drawn by its server; an image service by its tiles where it has them, else
    /// by its server too.
    private static func openPart(_ layer: WebMapLayer, http: HTTPClient, cacheDirectory: String?,
                                 openImage: ServiceImageOpener?) async throws -> BasemapPart {
        if layer.layerType == "ArcGISMapServiceLayer" {
            guard let openImage else {
                throw MapSourceError("\(TileServiceSource.layerName(layer)) is drawn by its server, which cannot be asked here.")
            }
            return .image(try await openImage(layer))
        }
        do {
            return .tiles(try await TileServiceSource.connect(layer, http: http, cacheDirectory: cacheDirectory))
        } catch let tiled where layer.layerType == "ArcGISImageServiceLayer" {
            guard let openImage, let picture = try? await openImage(layer) else { throw tiled }
            return .image(picture)
        }
    }
}
