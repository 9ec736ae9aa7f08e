import ArcGISPortal
import Foundation
import MapbookCore
import ArcGISModel
import Geometry
import LibraryModel
import TileFormats

/// An operational layer's features kept with a downloaded area, so its map shows and identifies
/// them offline: the layer's description and the web map's overrides, as they came, and the
/// features within the area (up to a limit).
public struct FeatureCopy: Sendable {
    public var title: String
    public var info: FeatureLayerInfo
    public var features: [LayerFeature]
    public var opacity: Double
    public var visible: Bool
    /// The copy stopped at `FeatureCopies.limit`; `leftOut` features were left out, when known.
    public var capped: Bool
    public var leftOut: Int?
    /// Why the layer could not be copied when the area was downloaded; nil when it was.
    public var problem: String?
    /// The web map layer's URL, when it had one.
    public var url: String?
    /// A map service's picture of the area, in place of features.
    public var picture: KeptPicture?

    public init(title: String, info: FeatureLayerInfo, features: [LayerFeature], opacity: Double = 1, visible: Bool = true,
                capped: Bool = false, leftOut: Int? = nil, problem: String? = nil, url: String? = nil, picture: KeptPicture? = nil) {
        self.title = title; self.info = info; self.features = features; self.opacity = opacity; self.visible = visible
        self.capped = capped; self.leftOut = leftOut; self.problem = problem; self.url = url; self.picture = picture
    }
}

/// A map service's picture of a downloaded area, drawn offline where the service cannot be asked:
/// the image's bytes (PNG) and its box in Web Mercator metres.
public struct KeptPicture: Sendable {
    public var image: Data
    public var xmin: Double, ymin: Double, xmax: Double, ymax: Double

    /// The longest side of the picture asked for: detail to about 1/2048 of the area's width, within
    /// the 4096 pixels ArcGIS Server gives by default.
    public static let longestSide = 2048

    /// The box and size asked of the service for `extent`: its Web Mercator box, the longest side
    /// `longestSide` pixels and the other in proportion.
    public static func view(of extent: GeoExtent) -> ServiceView {
        let sw = WebMercator.projected(longitude: extent.xmin, latitude: extent.ymin)
        let ne = WebMercator.projected(longitude: extent.xmax, latitude: extent.ymax)
        let (width, height) = (max(ne.x - sw.x, 1), max(ne.y - sw.y, 1))
        let scale = Double(longestSide) / max(width, height)
        return ServiceView(xmin: sw.x, ymin: sw.y, xmax: sw.x + width, ymax: sw.y + height,
                           width: (width * scale).clampedInt(in: 1...longestSide), height: (height * scale).clampedInt(in: 1...longestSide))
    }
}

/// Fetching, writing and reading an area's feature copies: one JSON file per layer in the area's
/// `features` folder, bottom layer first (`00.json`, `01.json`, …), swapped in whole.
public enum FeatureCopies {
    /// The most features kept per layer.
    public static let limit = 20_000
    static let format = "mapbook-feature-copy"

    /// How long one area's feature copies may take in all, however its services page.
    public static let budget = Duration.seconds(300)

    /// Each layer's copy over `extent` as a file's bytes (a feature collection's, one a part; a CSV
    /// file's, read once). A layer that fails is written too, with
    /// its sentence and no features: the map then says why it is missing. The copies share
    /// `budget`: a layer whose turn comes after it ran out is written with a sentence saying so.
    public static func fetch(_ layers: [WebMapLayer], within extent: GeoExtent, client: PortalClient, limit: Int = limit,
                             budget: Duration = budget, copied: @Sendable (Int) -> Void = { _ in }) async -> [Data] {
        var files: [Data] = []
        var done = 0
        let deadline = ContinuousClock.now + budget
        for layer in layers {
            func document(title: String? = nil, popupInfo: JSONValue? = layer.popupInfo) -> [String: JSONValue] {
                [
                    "format": .string(format), "version": .number(1), "title": .string(title ?? layer.title ?? layer.id ?? "Layer"),
                    "url": layer.url.map { .string($0) } ?? .null, "opacity": .number(layer.opacity), "visible": .bool(layer.visible),
                    "layerDefinition": layer.layerDefinition ?? .null, "popupInfo": popupInfo ?? .null,
                    "extent": .array([extent.xmin, extent.ymin, extent.xmax, extent.ymax].map { .number($0) }),
                ]
            }
            func embedded(_ read: EmbeddedFeatureLayer) -> [String: JSONValue] {
                var copy = document(title: read.title, popupInfo: read.popupInfo)
                copy["layer"] = read.description
                copy["features"] = .array(read.featureJSON)
                copy["capped"] = .bool(read.leftOut > 0)
                if read.leftOut > 0 { copy["leftOut"] = .number(Double(read.leftOut)) }
                return copy
            }
            var documents: [[String: JSONValue]] = []
            do {
                let left = deadline - .now
                switch layer.drawing {
                case .featureCollection:
                    // Inside the web map: kept with the area all the same, so the area's map is whole.
                    let (read, problems) = FeatureCollectionLayers.read(layer)
                    documents = read.map(embedded) + problems.map { problem in
                        var copy = document()
                        copy["problem"] = .string(problem)
                        return copy
                    }
                case _ where left <= .zero:
                    throw FeatureServiceError("Not copied: the area's feature copies took over \(budget.components.seconds) s.")
                case .csv:
                    documents = [embedded(try await client.csvLayer(layer))]
                case .serviceImage:
                    // The server's picture of the whole area, kept to be drawn offline.
                    let view = KeptPicture.view(of: extent)
                    let image = try await client.exportImage(try await client.mapService(layer), view: view)
                    do { _ = try RasterImage(decoding: image) } catch {
                        throw MapServiceError("The service's picture of the area could not be read: \(error.userSentence)")
                    }
                    var copy = document()
                    copy["picture"] = .object([
                        "image": .string(image.base64EncodedString()),
                        "box": .array([view.xmin, view.ymin, view.xmax, view.ymax].map { .number($0) }),
                    ])
                    documents = [copy]
                default:
                    var copy = document()
                    let description = try await client.featureLayer(layer)
                    let result = try await client.queryFeatures(description, within: extent, limit: limit, budget: min(left, PortalClient.queryBudget))
                    copy["layer"] = description.json
                    copy["features"] = .array(result.featureJSON)
                    copy["capped"] = .bool(result.isCapped)
                    if let stopped = result.stopped { copy["stopped"] = .string(stopped) }
                    if let leftOut = result.leftOut { copy["leftOut"] = .number(Double(leftOut)) }
                    documents = [copy]
                }
            } catch {
                var copy = document()
                copy["problem"] = .string(TerminalText.sanitizedLine(error.userSentence, maxLength: 300))
                documents = [copy]
            }
            for copy in documents { files.append((try? JSONEncoder().encode(JSONValue.object(copy))) ?? Data()) }
            done += 1
            copied(done)
        }
        return files
    }

    /// Reads one copy; nil for a file that is not one (damaged, or another program's).
    public static func read(_ data: Data) -> FeatureCopy? {
        guard let json = try? JSONValue(parsing: data), json["format"]?.string == format else { return nil }
        let title = json["title"]?.string ?? "Layer"
        let opacity = min(max(json["opacity"]?.double ?? 1, 0), 1), visible = json["visible"]?.bool ?? true
        let url = json["url"]?.string
        if let problem = json["problem"]?.string {
            return FeatureCopy(title: title, info: FeatureLayerInfo(name: title, geometryType: .point, renderer: FeatureRenderer(kind: .simple, classes: [])),
                               features: [], opacity: opacity, visible: visible, problem: problem, url: url)
        }
        if let picture = json["picture"] {
            guard let image = picture["image"]?.string.flatMap({ Data(base64Encoded: $0) }),
                  let box = picture["box"]?.array.compactMap(\.double), box.count == 4, box.allSatisfy(\.isFinite),
                  box[2] > box[0], box[3] > box[1] else { return nil }
            return FeatureCopy(title: title, info: FeatureLayerInfo(name: title, geometryType: .point, renderer: FeatureRenderer(kind: .simple, classes: [])),
                               features: [], opacity: opacity, visible: visible, url: url,
                               picture: KeptPicture(image: image, xmin: box[0], ymin: box[1], xmax: box[2], ymax: box[3]))
        }
        func present(_ key: String) -> JSONValue? { json[key].flatMap { $0 == .null ? nil : $0 } }
        guard let layer = json["layer"],
              let info = FeatureLayerInfo(json: layer, overrides: present("layerDefinition"), popupInfo: present("popupInfo"), title: title) else {
            return nil
        }
        let features = EsriFeatures.features(in: .object(["features": json["features"] ?? .array([])])).features
        return FeatureCopy(title: title, info: info, features: features, opacity: opacity, visible: visible, capped: json["capped"]?.bool ?? false,
                           leftOut: json["leftOut"]?.int64.map { Int(clamping: $0) }, url: url)
    }
}

extension OfflineLibrary {
    public func featuresDirectory(_ area: ItemID) -> String { areaDirectory(area) + "/features" }

    /// The area's feature copies, bottom first, and a sentence for each file that could not be read.
    public func featureCopies(_ area: ItemID) -> (copies: [FeatureCopy], problems: [String]) {
        let folder = featuresDirectory(area)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        var copies: [FeatureCopy] = [], problems: [String] = []
        for name in names {
            if let data = FileManager.default.contents(atPath: folder + "/" + name), let copy = FeatureCopies.read(data) {
                copies.append(copy)
            } else {
                problems.append("A layer's copy on this device (\(name)) could not be read; download the area again to replace it.")
            }
        }
        return (copies, problems)
    }

    public func hasFeatureCopies(_ area: ItemID) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: featuresDirectory(area))) ?? []).contains { $0.hasSuffix(".json") }
    }

    /// Replaces the area's copies with `files` as a whole: written into a new folder, synced, then
    /// swapped in, so a crash leaves the old copies or the new, never a mix.
    public func saveFeatureCopies(_ files: [Data], for area: ItemID) throws(LibraryError) {
        let folder = featuresDirectory(area), fresh = folder + ".new", old = folder + ".old"
        try? FileManager.default.removeItem(atPath: fresh)
        do throws(LibraryError) {
            try AtomicFile.makeDirectory(fresh)
            for (index, data) in files.enumerated() {
                try AtomicFile.write(data, to: fresh + "/" + String(format: "%02d.json", index))
            }
        } catch {
            // A full disk leaves nothing half-written behind, and the old copies in place.
            try? FileManager.default.removeItem(atPath: fresh)
            throw error
        }
        try? FileManager.default.removeItem(atPath: old)
        if FileManager.default.fileExists(atPath: folder), rename(folder, old) != 0 { throw .write(path: folder, errno: errno) }
        if rename(fresh, folder) != 0 { throw .write(path: folder, errno: errno) }
        AtomicFile.syncDirectory(areaDirectory(area))
        try? FileManager.default.removeItem(atPath: old)
    }
}
