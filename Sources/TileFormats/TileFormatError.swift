import MapbookCore

/// Why a tile or package could not be read.
public enum TileFormatError: Error, Sendable, Equatable {
    case cannotOpen(path: String, reason: String)
    case truncated(String)
    case malformed(String)
    /// A tile's recorded size is beyond any real tile: refused rather than allocated.
    case tileTooLarge(Int64)
    /// Read, but in a form mapbook does not draw (a tiling scheme it cannot place): why, as a clause.
    case unsupported(String)
}

/// Details name entries and paths from the package itself: always said as clean lines.
extension TileFormatError: CustomStringConvertible, UserFacingError {
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open \(Self.clean(path)): \(Self.clean(reason))"
        case .truncated(let detail): return "truncated: \(Self.clean(detail))"
        case .malformed(let detail): return Self.clean(detail)
        case .tileTooLarge(let size): return "a tile or entry claims \(size) bytes, more than any real one"
        case .unsupported(let reason): return Self.clean(reason)
        }
    }

    private static func clean(_ text: String) -> String { TerminalText.sanitizedLine(text, maxLength: 400) }

    public var userMessage: String {
        switch self {
        case .cannotOpen(let path, let reason): return "Cannot open \(Self.clean(path)): \(Self.clean(reason))."
        case .unsupported(let reason): return "The package cannot be drawn: \(Self.clean(reason))."
        default: return "The package is damaged or not a tile package (\(description))."
        }
    }
}

/// Why a vector tile could not be decoded.
public enum MVTError: Error, Sendable, Equatable {
    case truncated
    case malformed(String)
    case invalidGeometry(String)
}

extension MVTError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .truncated: return "the tile ends in the middle of a field"
        case .malformed(let detail): return TerminalText.sanitizedLine(detail, maxLength: 400)
        case .invalidGeometry(let detail): return "invalid geometry: \(detail)"
        }
    }
}
