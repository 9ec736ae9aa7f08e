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

    public let layers: [Layer]
    /// Feature layers that stand in for a basemap (the world outline), under the operational ones.
    public var baseFeatures: [FeatureLayerLoader] = []
    /// The web map's operational feature layers, bottom first.
    public var features: [FeatureLayerLoader] = []
    /// The web map's operational layers the server draws (map services), bottom first; under the features.
    public var images: [ServiceImageLayer] = []
    /// Layers that could not be opened or drawn, one sentence each: the footer names them.
    public var problems: [String]

    public init(layers: [Layer], problems: [String] = []) { self.layers = layers; self.problems = problems }

    /// One source alone (a package's style problem, if it has one, as its problem).
    public init(_ source: any MapSource) {
        self.init(layers: [Layer(loader: TileLoader(source: source))],
                  problems: (source as? PackageMapSource)?.styleProblem.map { [$0] } ?? [])
    }

    /// The names the layer list offers: one source's own layers; for several, each raster service
    /// by its name and each vector service's source layers.
    /// (The operational layers are listed apart, above these.)
    public var layerNames: [String] {
        guard !layers.isEmpty else { return baseFeatures.map(\.title) }
        guard layers.count > 1 else { return layers.first?.loader.source.layerNames ?? [] }
        return layers.flatMap { layer in layer.loader.source.isVector ? layer.loader.source.style.sourceLayers : [layer.loader.source.name] }
    }

    /// The legends of the listed layers: a vector layer's by source layer (its colours as at style
    /// zoom `zoom`), a raster service's by its name (its own legend, when it has one).
    public func legend(zoom: Double = 10) -> [String: [LegendEntry]] {
        layers.reduce(into: [:]) { legend, layer in
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
        // Tiles, features and servers' pictures are waited for together: a drawing takes as long as the slowest.
        async let tiles = layers.concurrentMap { await $0.loader.tiles(for: request.viewport, columns: request.columns, rows: request.rows) }
        let shown = (baseFeatures + features).filter { !request.hiddenLayers.contains($0.title) }
        async let features = shown.concurrentMap { await $0.features(for: request.viewport, columns: request.columns, rows: request.rows) }
        let shownImages = images.filter { !request.hiddenLayers.contains($0.title) }
        async let pictures = shownImages.concurrentMap { await $0.image(for: request.viewport, columns: request.columns, rows: request.rows) }
        let (loaded, featureResults, imageResults) = await (tiles, features, pictures)
        var featureScenes: [FeatureLayerScene] = []
        var featureProblems: [String] = []
        for (loader, result) in zip(shown, featureResults) {
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
        let scenes = zip(layers, loaded).map { layer, tiles in
            let source = layer.loader.source
            var hidden = request.hiddenLayers
            // Several layers: a raster service is switched off by its own name.
            if !single, !source.isVector, hidden.contains(source.name) { hidden.insert(MapComposer.rasterLayerName) }
            return MapScene(viewport: request.viewport, mode: request.mode, style: source.style, tiles: tiles.tiles,
                            tileSize: source.tileSize, hiddenLayers: hidden, attribution: source.attribution,
                            colors: request.colors, lightTheme: request.lightTheme, opacity: layer.opacity)
        }
        // No tiles at all (the world outline alone): one empty scene sets the view for the features.
        var drawn = scenes.isEmpty ? [MapScene(viewport: request.viewport, mode: request.mode, tiles: [], colors: request.colors,
                                                          lightTheme: request.lightTheme)] : scenes
        // A map service's credit joins the basemap's.
        let credits = ([drawn[0].attribution] + shownImages.map(\.attribution)).compactMap { $0 }
            .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        drawn[0].attribution = credits.isEmpty ? nil : credits.joined(separator: " | ")
        var frame = Frame(width: request.columns, height: request.rows)
        let (names, report) = MapComposer.compose(drawn, images: imageResults.compactMap(\.image), features: featureScenes,
                                                  referenceFrom: layers.firstIndex(where: \.isReference), into: &frame, rect: frame.bounds)
        var problems = problems + imageResults.compactMap(\.problem) + featureProblems
        for sentence in loaded.flatMap(\.problems) where !problems.contains(sentence) { problems.append(sentence) }
        if report.damagedFeatures > 0 {
            problems.append("\(report.damagedFeatures) feature\(report.damagedFeatures == 1 ? "" : "s") with broken geometry left out.")
        }
        return MapImage(picture: MapPicture(frame: frame, names: names, colors: request.colors), request: request, report: report, problems: problems)
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

    /// Opens the basemap's layers that mapbook draws (together, kept in order). Layers it cannot
    /// draw or open are named in `problems`; with none open it throws the first layer's error.
    public static func connect(_ basemap: Basemap, http: HTTPClient, cacheDirectory: String?) async throws -> MapStack {
        let drawable = basemap.drawableLayers
        let opened = await drawable.concurrentMap { layer -> Result<TileServiceSource, any Error> in
            do { return .success(try await TileServiceSource.connect(layer, http: http, cacheDirectory: cacheDirectory)) } catch { return .failure(error) }
        }
        var layers: [Layer] = []
        var problems = basemap.undrawableLayers.map(TileServiceSource.cannotDraw)
        var firstError: (any Error)?
        for (layer, result) in zip(drawable, opened) {
            switch result {
            case .success(let source):
                layers.append(Layer(loader: TileLoader(source: source), opacity: layer.opacity, isReference: layer.isReference))
            case .failure(let error):
                firstError = firstError ?? error
                problems.append("\(TileServiceSource.layerName(layer)) could not be opened: \(error.userSentence)")
            }
        }
        guard !layers.isEmpty else {
            if let firstError { throw firstError }
            throw MapSourceError(problems.first ?? "This basemap has no layer mapbook can draw.")
        }
        return MapStack(layers: layers, problems: problems)
    }
}
