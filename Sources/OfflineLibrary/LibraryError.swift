import Foundation
import MapbookCore

/// What can go wrong with the library on disk or a download into it; each is one sentence for the user.
public enum LibraryError: Error, Sendable, Equatable {
    case write(path: String, errno: Int32)
    /// A file mapbook wrote no longer reads back.
    case corrupt(path: String, detail: String)
    /// The area has no packages, or is still being packaged, or failed packaging on the portal.
    case notDownloadable(title: String, status: String)
    /// The downloaded file is not the size the portal listed.
    case sizeMismatch(package: String, expected: Int64, actual: Int64)
    /// The downloaded file fails the package's own checksums, or is not a package at all.
    case damaged(package: String, detail: String)
    /// No area in the library or on the portal goes by this name.
    case noSuchArea(String)
    case ambiguousArea(String, matches: [String])

    public var isDiskFull: Bool {
        if case .write(_, let code) = self { return code == ENOSPC || code == EDQUOT }
        return false
    }
}

extension LibraryError: UserFacingError {
    public var userMessage: String {
        switch self {
        case .write(let path, let code) where code == ENOSPC || code == EDQUOT:
            return "The disk is full: \(path) could not be written. Free some space and try again."
        case .write(let path, let code):
            return "\(path) could not be written (\(String(cString: strerror(code))))."
        case .corrupt(let path, let detail):
            return "\(path) is damaged (\(detail)); remove the area and download it again."
        case .notDownloadable(let title, let status):
            return "\(Self.safe(title)) cannot be downloaded: the portal says its packages are \(Self.safe(status))."
        case .sizeMismatch(let package, let expected, let actual):
            return "\(Self.safe(package)) arrived with \(Format.bytes(actual)), not the \(Format.bytes(expected)) the portal lists; nothing was kept. Try again."
        case .damaged(let package, let detail):
            // The detail can quote names from inside the package.
            return "\(Self.safe(package)) arrived damaged (\(Self.safe(detail))); nothing was kept. Try again."
        case .noSuchArea(let name):
            return "No map area is called \"\(Self.safe(name))\"."
        case .ambiguousArea(let name, let matches):
            return "\"\(Self.safe(name))\" could mean \(matches.prefix(5).map(Self.safe).joined(separator: ", ")); use the item id."
        }
    }

    /// Names in these sentences come from the portal or from inside a package: made safe here, so
    /// every place that shows the sentence can trust it.
    private static func safe(_ text: String) -> String { TerminalText.sanitizedLine(text, maxLength: 120) }
}
