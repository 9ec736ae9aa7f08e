import AppModel
import ArcGISPortal
import Foundation
import MapSources
import MapbookCore
import OfflineLibrary

/// Opens a map's operational layers, for the browser and the commands alike.
public enum OperationalLayerLoaders {
    /// The loaders of a map's operational layers: a downloaded area's copies when it has them, else
    /// the web map's layers from their services (described together, kept in order); a sentence
    /// for each that could not be opened.
    public static func open(_ layers: OperationalLayers, library: OfflineLibrary, client: PortalClient?) async -> ([FeatureLayerLoader], [String]) {
        func title(_ text: String) -> String { TerminalText.sanitizedLine(text, maxLength: 80) }
        if let area = layers.area, library.hasFeatureCopies(area) {
            let (copies, unreadable) = library.featureCopies(area)
            var problems = unreadable
            var loaders: [FeatureLayerLoader] = []
            for copy in copies {
                if let problem = copy.problem {
                    problems.append("\(title(copy.title)) was not copied to this device: \(problem)")
                    continue
                }
                loaders.append(FeatureLayerLoader(title: title(copy.title), info: copy.info, features: copy.features, opacity: copy.opacity,
                                                  visible: copy.visible, capped: copy.capped, leftOut: copy.leftOut))
            }
            return (loaders, problems)
        }
        guard let client, !layers.online.isEmpty else { return ([], []) }
        let described = await withTaskGroup(of: Indexed<Result<FeatureLayerDescription, any Error>>.self,
                                            returning: [Result<FeatureLayerDescription, any Error>?].self) { group in
            for (index, layer) in layers.online.enumerated() {
                group.addTask {
                    do { return Indexed(index, .success(try await client.featureLayer(layer))) } catch { return Indexed(index, .failure(error)) }
                }
            }
            var results = [Result<FeatureLayerDescription, any Error>?](repeating: nil, count: layers.online.count)
            for await result in group { results[result.index] = result.value }
            return results
        }
        var loaders: [FeatureLayerLoader] = [], problems: [String] = []
        for (layer, result) in zip(layers.online, described) {
            let name = title(layer.title ?? layer.id ?? "Layer")
            switch result {
            case .success(let description)?:
                loaders.append(FeatureLayerLoader(title: name, info: description.info, opacity: layer.opacity, visible: layer.visible) { extent in
                    let result = try await client.queryFeatures(description, within: extent, limit: FeatureLayerLoader.viewLimit)
                    return (result.features, result.isCapped)
                })
            case .failure(let error)?: problems.append("\(name) could not be opened: \(error.userSentence)")
            case nil: break
            }
        }
        return (loaders, problems)
    }

}
