import Foundation
import MapbookCore
import ArcGISModel

/// What can go wrong with the library on disk or a download into it; each is one sentence for the user.
public enum LibraryError: Error, Sendable, Equatable {
    case write(path: String, errno: Int32)
    /// A file mapbook wrote no longer reads back.
    case corrupt(path: String, detail: String)
    /// The area has no packages, or is still being packaged, or failed packaging on the portal.
    case notDownloadable(title: String, reason: NotDownloadableReason)
    /// The file is not the size the portal listed: as it arrived, or (`stored`) as kept on this device.
    case sizeMismatch(package: String, expected: Int64, actual: Int64, stored: Bool = false)
    /// The file fails the package's own checksums, is not a package at all, or (kept) is missing.
    case damaged(package: String, detail: String, stored: Bool = false)
    /// Another process (or this one's download) is writing the area: `pid` as the holder wrote it.
    case busy(title: String, pid: Int32?)
    /// The packages cannot fit: `needed` more bytes than the `free` ones on the library's disk.
    case notEnoughSpace(title: String, needed: Int64, free: Int64)
    /// No area in the library or on the portal goes by this name.
    /// No area goes by this name; `choices` are the areas' titles.
    case noSuchArea(String, choices: [String] = [])
    case ambiguousArea(String, matches: [String])
    /// A downloaded area's feature copies are not all on disk (deleted, or lost to a full disk).
    case featureCopiesMissing(count: Int, of: Int)
    /// An area of the user's own cannot be made (or finished): the servers' jobs refused, failed or
    /// outlasted the wait. `reason` is one clause.
    case cannotMake(title: String, reason: String)

    public var isDiskFull: Bool {
        switch self {
        case .write(_, let code): return code == ENOSPC || code == EDQUOT
        case .notEnoughSpace: return true
        default: return false
        }
    }

    /// The same problem found in a file kept on this device rather than in one just downloaded.
    package var asStored: LibraryError {
        switch self {
        case .sizeMismatch(let package, let expected, let actual, _): .sizeMismatch(package: package, expected: expected, actual: actual, stored: true)
        case .damaged(let package, let detail, _): .damaged(package: package, detail: detail, stored: true)
        default: self
        }
    }
}

/// Why the portal's area cannot be downloaded (yet).
public enum NotDownloadableReason: Sendable, Equatable {
    case processing
    case packagingFailed
    case noPackages
    /// A status value mapbook does not know, as the portal gave it.
    case status(String)
    /// The portal's description of the area could not be read.
    case unavailable(String)

    /// Why `area` cannot be downloaded; nil when it can.
    public init?(_ area: MapArea) {
        if let why = area.unavailableReason { self = .unavailable(why); return }
        switch area.status {
        case .complete:
            guard area.packages.isEmpty else { return nil }
            self = .noPackages
        case .processing: self = .processing
        case .failed: self = .packagingFailed
        case .other(let value): self = .status(value)
        case .unknown: self = area.packages.isEmpty ? .noPackages : .status("none")
        }
    }
}

extension LibraryError: UserFacingError {
    public var userMessage: String {
        switch self {
        case .write(let path, let code) where code == ENOSPC || code == EDQUOT:
            return "The disk is full: \(path) could not be written. Free some space and try again."
        case .write(let path, ELOOP):
            return "\(path) is a symbolic link, and mapbook does not write through links in its folders; remove it and try again."
        case .write(let path, let code):
            return "\(path) could not be written (\(String(cString: strerror(code))))."
        case .corrupt(let path, let detail):
            return "\(path) is damaged (\(detail)); remove the area and download it again."
        case .notDownloadable(let title, let reason):
            let name = Self.safe(title)
            switch reason {
            case .processing: return "\(name) is still being packaged on the portal; try again once it is ready."
            case .packagingFailed: return "\(name) cannot be downloaded: packaging it failed on the portal. Its owner must package it again."
            case .noPackages: return "\(name) cannot be downloaded: the portal lists no packages for it."
            case .status(let status):
                return "\(name) cannot be downloaded: the portal gives its status as \"\(Self.safe(status))\", which mapbook does not know."
            case .unavailable(let why): return "\(name) is unavailable: \(Self.safe(why))"
            }
        case .sizeMismatch(let package, let expected, let actual, let stored):
            let (has, listed) = Format.bytes(actual, against: expected)
            if stored {
                return "\(Self.safe(package)) on this device has \(has), not the \(listed) recorded; `mapbook verify --repair` downloads it again."
            }
            return "\(Self.safe(package)) arrived with \(has), not the \(listed) the portal lists; it was not kept. Try again."
        case .damaged(let package, let detail, let stored):
            // The detail can quote names from inside the package.
            if stored {
                return "\(Self.safe(package)) on this device is damaged (\(Self.safe(detail))); `mapbook verify --repair` downloads it again."
            }
            return "\(Self.safe(package)) arrived damaged (\(Self.safe(detail))); it was not kept. Try again."
        case .busy(let title, let pid):
            return "\(Self.safe(title)) is being downloaded by another mapbook\(pid.map { " (pid \($0))" } ?? ""); wait for it, or stop it first."
        case .notEnoughSpace(let title, let needed, let free):
            let (need, have) = Format.bytes(needed, against: free)
            return "\(Self.safe(title)) needs \(need) more on this disk, but only \(have) is free."
        case .noSuchArea(let name, let choices):
            let listed = choices.prefix(10).map(Self.safe).joined(separator: ", ")
            let more = choices.count > 10 ? ", and \(choices.count - 10) more" : ""
            return "No map area is called \"\(Self.safe(name))\"." + (choices.isEmpty ? "" : " The areas are: \(listed)\(more).")
        case .featureCopiesMissing(let count, let total):
            return "\(count) of the area's \(total) feature layer cop\(total == 1 ? "y is" : "ies are") missing; "
                + "`mapbook download` (or `verify --repair`) fetches them again."
        case .cannotMake(let title, let reason):
            return "\(Self.safe(title)) cannot be made: \(TerminalText.sanitizedLine(reason, maxLength: 400))."
        case .ambiguousArea(let name, let matches):
            return "\"\(Self.safe(name))\" could mean \(matches.prefix(5).map(Self.safe).joined(separator: ", ")); use the item id."
        }
    }

    /// Names in these sentences come from the portal or from inside a package: made safe here, so
    /// every place that shows the sentence can trust it.
    private static func safe(_ text: String) -> String { TerminalText.sanitizedLine(text, maxLength: 120) }
}
