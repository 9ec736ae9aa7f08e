import Foundation
import Geometry
import Places
import TileFormats

extension OfflineLibrary {
    /// The names inside the downloaded areas' vector packages, each package's read once and kept
    /// beside it (`<package>.names`, tagged with the package's size and date so a changed package
    /// is read again).
    public func downloadedPlaceNames() -> [PlaceName] {
        downloadRecords().values.flatMap { record in mapPackagePaths(record).flatMap(Self.placeNames(ofPackageAt:)) }
    }

    /// One package's names, from its `.names` file when that is current.
    static func placeNames(ofPackageAt path: String) -> [PlaceName] {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let stamp = "mapbook-names 1 \(attributes?[.size] as? Int ?? 0) \(Int((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0))"
        let kept = path + ".names"
        if let data = FileManager.default.contents(atPath: kept) {
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
            if lines.first.map(String.init) == stamp {
                return lines.dropFirst().compactMap { line in
                    let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                    guard fields.count == 4, let lon = Double(fields[1]), let lat = Double(fields[2]), let rank = Double(fields[3]) else { return nil }
                    return PlaceName(name: String(fields[0]), point: GeoPoint(longitude: lon, latitude: lat), rank: rank)
                }
            }
        }
        guard let package = try? TilePackage(path: path), let names = try? PlaceIndex.names(in: package) else { return [] }
        let body = ([stamp] + names.map { "\($0.name.replacingOccurrences(of: "\t", with: " "))\t\($0.point.longitude)\t\($0.point.latitude)\t\($0.rank)" })
            .joined(separator: "\n") + "\n"
        try? AtomicFile.write(Data(body.utf8), to: kept)
        return names
    }
}
