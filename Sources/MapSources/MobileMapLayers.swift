import ArcGISModel
import Foundation
import Geodatabase
import Geometry
import MapbookCore
import MobilePackages
import TileFormats

/// One map of a mobile map package, opened to draw: its basemap's tile packages, its feature
/// layers from the package's geodatabases (drawn, identified and given popups as the map says), and
/// a sentence for every layer it names that cannot be drawn.
public struct MobileMapLayers: Sendable {
    /// Tile layers, bottom first (reference layers last).
    public var tiles: [MapStack.Layer] = []
    /// Feature layers in the basemap (drawn under the operational ones).
    public var baseFeatures: [FeatureLayerLoader] = []
    /// Operational feature layers, bottom first.
    public var features: [FeatureLayerLoader] = []
    public var problems: [String] = []
    /// A line per layer the map names and that is not drawn, and why (the layer list shows it).
    public var notDrawn: [String] = []
    /// Where the map opens: its initial view, else its item's extent, else its data's.
    public var home: GeoExtent?
    public var bookmarks: [Bookmark] = []

    /// The map's layers as a stack; nil when its basemap has no tile layer to draw.
    public var stack: MapStack? {
        guard !tiles.isEmpty else { return nil }
        var stack = MapStack(layers: tiles, problems: problems)
        stack.baseFeatures = baseFeatures
        stack.features = features
        stack.notDrawn = notDrawn
        return stack
    }

    /// `budget`: the stored features the map may draw in all (`GeodatabaseLayers.Budget`).
    public static func open(_ map: MobileMapPackage.Map, in package: MobileMapPackage,
                            budget: GeodatabaseLayers.Budget = .init()) -> MobileMapLayers {
        var opened = MobileMapLayers()
        opened.bookmarks = map.webMap.bookmarks
        var geodatabases = GeodatabaseFiles(package: package)
        var budget = budget
        var dataExtent: GeoExtent?
        for planned in package.layers(of: map) {
            switch planned.data {
            case .notDrawn(let sentence):
                opened.problems.append(sentence)
                opened.notDrawn.append(Self.line(planned.title, sentence))
            case .tilePackage(let file):
                guard planned.visible else { continue }
                do {
                    let tiles = try TilePackage(source: package.byteSource(of: file), path: file)
                    let source = try PackageMapSource(tiles: tiles, path: file)
                    opened.tiles.append(MapStack.Layer(loader: TileLoader(source: source), opacity: planned.layer.opacity,
                                                       isReference: planned.isBasemap && planned.layer.isReference))
                    if let problem = source.styleProblem { opened.problems.append(problem) }
                    if planned.isBasemap, !planned.layer.isReference, let extent = source.extent { dataExtent = dataExtent ?? extent }
                } catch {
                    opened.problems.append("\(planned.title) cannot be drawn: \(error.userSentence)")
                    opened.notDrawn.append(Self.line(planned.title, error.userSentence))
                }
            case .geodatabase(let file, let itemID):
                let found: (Geodatabase, GeodatabaseLayer)
                switch geodatabases.table(file, itemID: itemID, title: planned.title) {
                case .success(let table): found = table
                case .failure(let problem):
                    if let sentence = problem.sentence { opened.problems.append(sentence) }
                    opened.notDrawn.append("\(planned.title) · not drawn: its table cannot be read")
                    continue
                }
                let (gdb, table) = found
                let read = GeodatabaseLayers.read(table, from: gdb, as: planned.layer, visible: planned.visible, budget: &budget)
                opened.problems += read.problems
                opened.notDrawn += read.notDrawn.map { [$0] } ?? []
                if let extent = read.extent { dataExtent = dataExtent?.union(extent) ?? extent }
                if let loader = read.loader {
                    if planned.isBasemap { opened.baseFeatures.append(loader) } else { opened.features.append(loader) }
                }
            }
        }
        opened.home = map.webMap.initialExtent?.geographic ?? map.extent ?? dataExtent
        return opened
    }
}

extension MobileMapLayers {
    /// The layer list's line for a layer not drawn: the sentence when it names the layer, else the
    /// title and the sentence as a clause.
    static func line(_ title: String, _ sentence: String) -> String {
        let clause = sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
        return clause.hasPrefix(title + " ") ? clause : "\(title) · not drawn: \(clause)"
    }
}

/// A package's geodatabases, each opened once however many layers name it.
public struct GeodatabaseFiles {
    /// Why a layer's table is not there; `sentence` is nil when its file's failure was already said.
    public struct Missing: Error { public let sentence: String? }

    let package: MobileMapPackage
    private var opened: [String: Result<Geodatabase, MobilePackageError>] = [:]

    public init(package: MobileMapPackage) { self.package = package }

    public mutating func table(_ file: String, itemID: Int?, title: String) -> Result<(Geodatabase, GeodatabaseLayer), Missing> {
        let known = opened[file]
        let result = known ?? Result { () throws(MobilePackageError) -> Geodatabase in
            let path = try package.localPath(of: file)
            do { return try Geodatabase(path: path, name: file) } catch { throw MobilePackageError(error.userSentence) }
        }
        opened[file] = result
        switch result {
        case .failure(let error): return .failure(Missing(sentence: known == nil ? error.sentence : nil))
        case .success(let gdb):
            guard let table = gdb.layer(serviceLayerID: itemID) else {
                return .failure(Missing(sentence: "\(title) names layer \(itemID.map(String.init) ?? "?") of \(TerminalText.sanitizedLine(file, maxLength: 80)), which holds no such layer."))
            }
            return .success((gdb, table))
        }
    }
}
