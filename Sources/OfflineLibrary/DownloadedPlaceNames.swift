import ArcGISModel
import Foundation
import Geodatabase
import Geometry
import MapbookCore
import Places
import TileFormats

extension OfflineLibrary {
    /// The names inside the downloaded areas: their vector packages' labels, and their features by
    /// display field — from the area's geodatabases and its feature copies. Each file's are read
    /// once and kept beside it (`<file>.names`, tagged with the file's size and date, so a changed
    /// file is read again).
    public func downloadedPlaceNames() -> [PlaceName] {
        downloadRecords().values.flatMap { record in
            let labels = mapPackagePaths(record).flatMap(Self.placeNames(ofPackageAt:))
            let geodatabases = record.geodatabasePackages.flatMap { Self.placeNames(ofGeodatabaseAt: packagePath(record.areaID, $0)) }
            let folder = featuresDirectory(record.areaID)
            let copies = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
                .sorted().flatMap { Self.placeNames(ofFeatureCopyAt: folder + "/" + $0) }
            return labels + geodatabases + copies
        }
    }

    /// One package's labels.
    static func placeNames(ofPackageAt path: String) -> [PlaceName] {
        kept(path) {
            guard let package = try? TilePackage(path: path) else { return [] }
            return (try? PlaceIndex.names(in: package)) ?? []
        }
    }

    /// One geodatabase's features by display field, every layer that can be drawn.
    static func placeNames(ofGeodatabaseAt path: String) -> [PlaceName] {
        kept(path) {
            guard let gdb = try? Geodatabase(path: path) else { return [] }
            return gdb.layers.filter { $0.cannotBeDrawn == nil }.flatMap { layer in
                (try? gdb.features(of: layer, limit: PlaceIndex.featureNameLimit)).map {
                    PlaceIndex.names(ofFeatures: $0.features, info: layer.info, layer: layer.info.name)
                } ?? []
            }
        }
    }

    /// One feature copy's features by display field.
    static func placeNames(ofFeatureCopyAt path: String) -> [PlaceName] {
        kept(path) {
            guard let data = FileManager.default.contents(atPath: path), let copy = FeatureCopies.read(data) else { return [] }
            return PlaceIndex.names(ofFeatures: copy.features, info: copy.info, layer: copy.title)
        }
    }

    /// A file's names from `<file>.names` when that names the file's size and date, else read and kept.
    private static func kept(_ path: String, read: () -> [PlaceName]) -> [PlaceName] {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let stamp = "mapbook-names 2 \(attributes?[.size] as? Int ?? 0) \(((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0).clampedInt(rounding: .towardZero))"
        let keptPath = path + ".names"
        if let data = FileManager.default.contents(atPath: keptPath) {
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
            if lines.first.map(String.init) == stamp { return lines.dropFirst().compactMap(placeName(line:)) }
        }
        let names = read()
        let body = ([stamp] + names.map(line(of:))).joined(separator: "\n") + "\n"
        try? AtomicFile.write(Data(body.utf8), to: keptPath)
        return names
    }

    /// Name, longitude, latitude, rank; for a feature also its layer and its extent (empty when none).
    private static func line(of place: PlaceName) -> String {
        func clean(_ text: String) -> String { text.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ") }
        var fields = [clean(place.name), "\(place.point.longitude)", "\(place.point.latitude)", "\(place.rank)"]
        if place.source == .feature {
            fields += [clean(place.layer ?? "")] + (place.extent.map { ["\($0.xmin)", "\($0.ymin)", "\($0.xmax)", "\($0.ymax)"] } ?? ["", "", "", ""])
        }
        return fields.joined(separator: "\t")
    }

    private static func placeName(line: Substring) -> PlaceName? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 4 || fields.count == 9, let lon = Double(fields[1]), let lat = Double(fields[2]), let rank = Double(fields[3])
        else { return nil }
        var place = PlaceName(name: String(fields[0]), point: GeoPoint(longitude: lon, latitude: lat), rank: rank)
        if fields.count == 9 {
            place.source = .feature
            place.layer = fields[4].isEmpty ? nil : String(fields[4])
            let bounds = fields[5...8].compactMap { Double($0) }
            if bounds.count == 4 { place.extent = GeoExtent(xmin: bounds[0], ymin: bounds[1], xmax: bounds[2], ymax: bounds[3]) }
        }
        return place
    }
}
