import AppModel
import Foundation
import MapRender
import MapbookCore
import OfflineLibrary
import TileFormats
import ArcGISModel

/// Thumbnails as the screens draw them: decoded and shrunk once, off the UI thread.
enum Thumbnails {
    /// The thumbnails the library keeps for `items`.
    static func kept(of items: [PortalItem], in library: OfflineLibrary) -> [ItemID: RasterImage] {
        decode(Dictionary(items.compactMap { item in library.thumbnail(for: item.id).map { (item.id, $0) } },
                          uniquingKeysWith: { first, _ in first }))
    }

    /// Decoded and shrunk, so drawing them each frame costs little. A broken thumbnail keeps its
    /// placeholder; it is not worth a message.
    static func decode(_ data: [ItemID: Data]) -> [ItemID: RasterImage] {
        var images: [ItemID: RasterImage] = [:]
        for (id, bytes) in data {
            guard let image = try? RasterImage(decoding: bytes) else { continue }
            images[id] = ImageArt.shrunk(image, toFit: 64, 48)
        }
        return images
    }
}
