import ArcGISPortal
import Foundation
import MapRender
import MapSources
import MapbookCore
import OfflineLibrary
import ArcGISModel
import Geodatabase
import HTTP
import Synchronization
import TileFormats
import Editing

/// A map's operational layers, opened: the features mapbook draws, the pictures servers draw, the
/// layers only listed, and a sentence for each that could not be opened.
public struct OpenedOperationalLayers: Sendable {
    public var features: [FeatureLayerLoader] = []
    /// Map services, each over the feature layers listed under it.
    public var images: [MapStack.StackedImage] = []
    /// Layers listed in the layer list but not drawn: "Roads (KML) · not drawn".
    public var listedOnly: [String] = []
    public var problems: [String] = []

    public init(features: [FeatureLayerLoader] = [], images: [MapStack.StackedImage] = [], listedOnly: [String] = [], problems: [String] = []) {
        self.features = features; self.images = images; self.listedOnly = listedOnly; self.problems = problems
    }

    /// The layers drawn over `stack`'s basemap.
    public func add(to stack: inout MapStack) {
        let below = stack.features.count
        stack.features += features
        stack.images += images.map { MapStack.StackedImage($0.layer, featuresBelow: below + $0.featuresBelow) }
        stack.problems += problems
    }
}

/// Hosts found unreachable while a map's layers open, with the sentence that said so.
private final class UnreachableHosts: Sendable {
    private let hosts = Mutex<[String: String]>([:])

    func note(_ host: String, _ sentence: String) { hosts.withLock { $0[host.lowercased()] = sentence } }

    func sentence(for host: String) -> String? { hosts.withLock { $0[host.lowercased()] } }
}

/// Opens a map's operational layers, for the browser and the commands alike.
public enum OperationalLayerLoaders {
    /// The user's edits not yet synced, laid over the area's layers they were made in.
    private static func layEdits(of areaFolder: String, over opened: inout OpenedOperationalLayers) async {
        let edits: [FeatureEdit], server: [ServerChange]
        do {
            guard let journal = try EditJournal.existing(areaFolder: areaFolder) else { return }
            if let kept = journal.keptAside { opened.problems.append("The area's edit journal was damaged; it is kept at \(kept), and a new one was started.") }
            // Synced edits too: the area's own files stay as they were downloaded.
            edits = try journal.all().filter { $0.status != .undone }
            // The server's changes a replica's sync brought down go under them.
            server = try journal.serverChanges()
        } catch {
            opened.problems.append("The area's edits could not be read: \(error.userSentence)")
            return
        }
        for (index, loader) in opened.features.enumerated() {
            let own = edits.filter { $0.layer.title == loader.title }, theirs = server.filter { $0.layerTitle == loader.title }
            guard !own.isEmpty || !theirs.isEmpty, let edited = await loader.edited({ stored in
                EditOverlay.apply(own, to: EditOverlay.apply(server: theirs, to: stored, info: loader.info), info: loader.info)
            }) else { continue }
            opened.features[index] = edited
        }
    }

    /// One layer, opened.
    private enum Opened: Sendable {
        case features([FeatureLayerLoader], problems: [String])
        case image(ServiceImageLayer)
        case listed(String)
        /// One sentence; `unreachable` the network's sentence when the layer's host could not be reached.
        case failed(String, unreachable: String?)
        /// Not asked (its host had been found unreachable, or the deadline passed): the name and the
        /// predicate that says why, for one line for them all.
        case notAsked(String, String)
    }

    /// A downloaded area's layers from its own geodatabases where it has them, then from its copies
    /// (map services, which cannot be kept, still drawn online); else each layer as its kind is
    /// drawn: a feature service queried for the view, a feature collection read from the web map, a
    /// CSV file fetched once, a map service's pictures. What needs the network is listed, not
    /// drawn, without it.
    public static func open(_ layers: OperationalLayers, library: OfflineLibrary, client: PortalClient?) async -> OpenedOperationalLayers {
        var opened = OpenedOperationalLayers()
        var remaining = layers.layers
        var geodatabases = AreaGeodatabases([])
        if let area = layers.area {
            geodatabases = library.geodatabases(area)
            opened.problems += geodatabases.problems
            opened.features += areaGeodatabaseLayers(geodatabases, webMapLayers: remaining, problems: &opened.problems, notDrawn: &opened.listedOnly)
            remaining = remaining.filter { !geodatabases.covers($0) }
        }
        if let area = layers.area, library.hasFeatureCopies(area) {
            let (copies, unreadable) = library.featureCopies(area)
            opened.problems += unreadable
            // An earlier download's copy of a layer the area's geodatabase now holds is not drawn twice.
            var pictured: Set<String> = []
            for copy in copies where copy.url.flatMap(geodatabases.table(forURL:)) == nil {
                if let problem = copy.problem {
                    opened.problems.append("\(title(copy.title)) was not copied to this device: \(problem)")
                    continue
                }
                if let picture = copy.picture {
                    // Online the service draws each view sharper than the kept picture of the area.
                    guard !layers.online || client == nil else { continue }
                    if let url = copy.url { pictured.insert(url) }
                    do {
                        let image = try RasterImage(decoding: picture.image)
                        opened.images.append(MapStack.StackedImage(
                            ServiceImageLayer(title: title(copy.title), opacity: copy.opacity, visible: copy.visible, kept: image,
                                              box: (picture.xmin, picture.ymin, picture.xmax, picture.ymax)),
                            featuresBelow: opened.features.count))
                    } catch {
                        opened.problems.append("\(title(copy.title))'s picture on this device could not be read: \(error.userSentence)")
                    }
                    continue
                }
                opened.features.append(FeatureLayerLoader(title: title(copy.title), info: copy.info, features: copy.features, opacity: copy.opacity,
                                                          visible: copy.visible, capped: copy.capped, leftOut: copy.leftOut))
            }
            remaining = remaining.filter { ($0.drawing == .serviceImage && !pictured.contains($0.url ?? "")) || $0.drawing == .none }
        }
        if let area = layers.area {
            await layEdits(of: library.areaDirectory(area), over: &opened)
        }
        let client = layers.online ? client : nil
        // Eight at a time, as the catalogue is asked; a host found unreachable is not asked again for
        // the other layers it serves, and past the deadline no further layer is begun (the first eight
        // always are): a web map of a hundred layers on a dead server draws what answered in seconds.
        let away = UnreachableHosts(), deadline = ContinuousClock.now + openingDeadline
        let results = await Array(remaining.enumerated()).concurrentMap(atMost: 8) { index, layer -> Opened in
            let name = title(layer.title ?? layer.id ?? "Layer")
            if let host = layer.url.flatMap(URL.init(string:))?.host, let sentence = away.sentence(for: host) {
                return .notAsked(name, "could not be opened either: \(sentence)")
            }
            guard index < 8 || ContinuousClock.now < deadline else {
                return .notAsked(name, "\(index == 0 ? "was" : "were") not opened: the map's layers did not all answer within \(openingDeadline.components.seconds) s.")
            }
            let opened = await open(layer, client: client)
            if case .failed(_, let unreachable?) = opened, let host = layer.url.flatMap(URL.init(string:))?.host { away.note(host, unreachable) }
            return opened
        }
        for result in results {
            switch result {
            case .features(let loaders, let problems): opened.features += loaders; opened.problems += problems
            case .image(let layer): opened.images.append(MapStack.StackedImage(layer, featuresBelow: opened.features.count))
            case .listed(let line): opened.listedOnly.append(line)
            case .failed(let sentence, _): opened.problems.append(sentence)
            case .notAsked: continue
            }
        }
        var notAsked: [(why: String, names: [String])] = []
        for case .notAsked(let name, let why) in results {
            if let index = notAsked.firstIndex(where: { $0.why == why }) { notAsked[index].names.append(name) } else { notAsked.append((why, [name])) }
        }
        for (why, names) in notAsked {
            let named = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? " and \(names.count - 3) more" : "")
            opened.problems.append("\(named) \(why)")
        }
        return opened
    }

    private static func title(_ text: String) -> String { TerminalText.sanitizedLine(text, maxLength: 80) }

    /// No layer past the first eight is begun after this long: the rest are named as not opened.
    static let openingDeadline: Duration = .seconds(30)

    /// The layers an area's geodatabases hold, bottom first: those no web map layer names (with
    /// their own renderer and fields), then the web map's, in its order and drawn as it says.
    private static func areaGeodatabaseLayers(_ geodatabases: AreaGeodatabases, webMapLayers: [WebMapLayer],
                                              problems: inout [String], notDrawn: inout [String]) -> [FeatureLayerLoader] {
        guard !geodatabases.isEmpty else { return [] }
        var loaders: [FeatureLayerLoader] = []
        var budget = GeodatabaseLayers.Budget()
        for (gdb, tables) in geodatabases.unnamed(by: webMapLayers) {
            for table in GeodatabaseLayers.drawingOrder(tables) {
                let read = GeodatabaseLayers.read(table, from: gdb, title: table.info.name, info: table.info, budget: &budget)
                problems += read.problems
                notDrawn += read.notDrawn.map { [$0] } ?? []
                if let loader = read.loader { loaders.append(loader) }
            }
        }
        for layer in webMapLayers {
            guard let (gdb, table) = geodatabases.table(for: layer) else { continue }
            let read = GeodatabaseLayers.read(table, from: gdb, as: layer, visible: layer.visible, budget: &budget)
            problems += read.problems
            notDrawn += read.notDrawn.map { [$0] } ?? []
            if let loader = read.loader { loaders.append(loader) }
        }
        return loaders
    }

    private static func open(_ layer: WebMapLayer, client: PortalClient?) async -> Opened {
        let name = title(layer.title ?? layer.id ?? "Layer")
        let kind = TerminalText.sanitizedLine(layer.layerType, maxLength: 40)
        if layer.drawing == .featureCollection {
            let (read, problems) = FeatureCollectionLayers.read(layer)
            return .features(read.map { embedded in loader(embedded, layer) }, problems: problems)
        }
        guard layer.drawing != .none else { return .listed("\(name) (\(kind)) · not drawn") }
        guard let client else { return .listed("\(name) (\(kind)) · needs the network") }
        do {
            switch layer.drawing {
            case .csv:
                return .features([loader(try await client.csvLayer(layer), layer)], problems: [])
            case .serviceImage:
                return .image(try await serviceImage(layer, client: client))
            default:
                let description = try await client.featureLayer(layer)
                return .features([FeatureLayerLoader(title: name, info: description.info, opacity: layer.opacity, visible: layer.visible) { extent in
                    let result = try await client.queryFeatures(description, within: extent, limit: FeatureLayerLoader.viewLimit)
                    return (result.features, result.isCapped)
                }], problems: [])
            }
        } catch {
            let unreachable = (error as? HTTPError).flatMap { $0.networkState == .online ? nil : $0.userSentence }
            return .failed("\(name) could not be opened: \(error.userSentence)", unreachable: unreachable)
        }
    }

    /// A map service (or an image service that is not tiled), operational or basemap: its pictures
    /// asked of its `export` for each view, what lies at a point of its `identify`, its legend.
    public static func serviceImage(_ layer: WebMapLayer, client: PortalClient) async throws -> ServiceImageLayer {
        let name = title(layer.title ?? layer.id ?? "Layer")
        let service = try await client.mapService(layer)
        let legend = await client.legend(of: service).map { MapLegend.entries(serviceLegend: $0) } ?? []
        return ServiceImageLayer(
            title: name, opacity: layer.opacity, visible: layer.visible, legend: legend,
            attribution: service.copyright.map { TerminalText.sanitizedLine(HTMLText.plainText($0), maxLength: 120) },
            fetch: { view in try await client.exportImage(service, view: serviceView(view)) },
            identify: { point, view in
                try await client.identify(service, at: point, view: serviceView(view)).map { hit(from: $0, layer: name, service: service) }
            })
    }

    /// A web map's basemap, its map services drawn through `client` (none: they are named as not
    /// drawn); the browser and the commands alike.
    public static func basemap(_ basemap: Basemap, client: PortalClient?, http: HTTPClient, cacheDirectory: String?) async throws -> MapStack {
        var opener: MapStack.ServiceImageOpener?
        if let client { opener = { layer in try await serviceImage(layer, client: client) } }
        return try await MapStack.connect(basemap, http: http, cacheDirectory: cacheDirectory, openImage: opener)
    }

    /// A layer read whole (a feature collection's part, a CSV file): a stored copy.
    private static func loader(_ read: EmbeddedFeatureLayer, _ layer: WebMapLayer) -> FeatureLayerLoader {
        FeatureLayerLoader(title: title(read.title), info: read.info, features: read.features, opacity: layer.opacity, visible: layer.visible,
                           capped: read.leftOut > 0, leftOut: read.leftOut > 0 ? read.leftOut : nil)
    }

    private static func serviceView(_ view: ServiceImageLayer.ImageView) -> ServiceView {
        ServiceView(xmin: view.left, ymin: view.bottom, xmax: view.right, ymax: view.top, width: view.width, height: view.height)
    }

    /// A map service's feature as a popup card: the web map's popup for its sublayer, else every attribute.
    private static func hit(from result: ServiceIdentifyResult, layer: String, service: MapServiceDescription) -> IdentifyHit {
        let popup = service.popups[result.layerID].flatMap(PopupInfo.init(json:))
        let card = PopupCard.make(layer: "\(layer) · \(result.layerName)", attributes: result.attributes, fields: [], popup: popup,
                                  displayField: result.displayField)
        return IdentifyHit(card: card, geometry: result.geometry)
    }
}
