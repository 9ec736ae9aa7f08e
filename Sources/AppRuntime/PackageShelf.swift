import AppModel
import ArcGISModel
import Foundation
import MapbookCore
import MobilePackages

/// The rows of the Maps card's Packages tab: the packages on this device first (each beside the
/// portal item it was downloaded from, saying when that item is newer), then the portal's
/// packages not yet here.
enum PackageShelf {
    static func listings(device: [DevicePackages.Entry], portal: [PortalItem]) -> [MapListing] {
        var rows = device.map { entry -> MapListing in
            let item = portal.first { $0.id.rawValue == entry.origin?.itemID }
            return listing(entry, item: item)
        }
        for item in portal where !device.contains(where: { $0.origin?.itemID == item.id.rawValue }) {
            rows.append(MapListing(id: item.id, title: item.title, owner: item.owner, modified: item.created, thumbnail: item.thumbnail,
                                   package: PackageListing(item: item.id, size: item.size)))
        }
        return rows
    }

    /// A package on this device, with the portal's item when it came from one.
    static func listing(_ entry: DevicePackages.Entry, item: PortalItem?) -> MapListing {
        let itemID = entry.origin.flatMap { ItemID($0.itemID) }
        return MapListing(id: itemID ?? PackageListing.rowID(fileName: entry.fileName), title: entry.info?.title ?? entry.fileName,
                          owner: item?.owner, modified: entry.info?.created, thumbnail: item?.thumbnail,
                          package: PackageListing(path: entry.path, item: itemID, size: entry.size,
                                                  maps: entry.problem == nil ? entry.mapNames.count : nil,
                                                  updateAvailable: item.map(entry.isOutdated(by:)) ?? false, problem: entry.problem))
    }
}
