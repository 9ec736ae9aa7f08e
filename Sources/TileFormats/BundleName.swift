import Foundation

/// A compact-cache bundle's place: its level (the cache's own id) and the row and column of its
/// top-left tile (multiples of 128).
public struct BundleKey: Hashable, Sendable {
    public var level: Int
    public var row: Int
    public var column: Int

    /// The bundle holding a tile.
    public init(level: Int, holdingRow row: Int, column: Int) {
        self.level = level; self.row = row & ~127; self.column = column & ~127
    }
}

/// Bundle file names as ArcGIS writes them: `L04/R0080C0100.bundle` (and `.bundlx` beside a V1
/// bundle) — `R`, the row in hexadecimal, `C`, the column in hexadecimal. Hex digits are written in
/// lower case, so a row such as `c380` makes `Rc380Ca680`: the column starts at the upper-case `C`.
/// A name written all in lower case is split where both halves are bundle origins (multiples of
/// 128), which leaves one choice in real caches.
public enum BundleName {
    /// The most hexadecimal digits of a row or column (2^32 tiles a side is past level 31).
    static let mostDigits = 8

    /// A path relative to the cache's level folders (`l04/r0080c0100.bundle`, any case): the
    /// bundle's place and whether the file is a V1 index; nil for anything else.
    public static func parse(_ relativePath: String) -> (key: BundleKey, isIndex: Bool)? {
        let parts = relativePath.split(separator: "/")
        guard parts.count == 2, let first = parts[0].first, first == "L" || first == "l",
              parts[0].count <= 4, let level = Int(parts[0].dropFirst()), level >= 0 else { return nil }
        let file = String(parts[1])
        let lower = file.lowercased()
        let isIndex = lower.hasSuffix(".bundlx")
        guard isIndex || lower.hasSuffix(".bundle") else { return nil }
        guard let origin = origin(String(file.dropLast(7))) else { return nil }
        return (BundleKey(level: level, holdingRow: origin.row, column: origin.column), isIndex)
    }

    /// `R{hex}C{hex}` → the row and column it names; nil when it names none (or not one alone).
    static func origin(_ stem: String) -> (row: Int, column: Int)? {
        let characters = Array(stem)
        guard characters.count >= 4, characters[0] == "R" || characters[0] == "r" else { return nil }
        func split(at index: Int) -> (row: Int, column: Int)? {
            let row = String(characters[1..<index]), column = String(characters[(index + 1)...])
            guard (1...mostDigits).contains(row.count), (1...mostDigits).contains(column.count),
                  let r = Int(row, radix: 16), let c = Int(column, radix: 16) else { return nil }
            return (r, c)
        }
        // The format's rule: the upper-case C starts the column.
        let upper = characters.indices.dropFirst(2).filter { characters[$0] == "C" }
        if upper.count == 1 { return split(at: upper[0]) }
        guard upper.isEmpty else { return nil }
        let choices = characters.indices.dropFirst(2).filter { characters[$0] == "c" }.compactMap(split)
            .filter { $0.row % 128 == 0 && $0.column % 128 == 0 }
        return choices.count == 1 ? choices[0] : nil
    }
}
