/// How many typos apart two names are: the optimal-string-alignment form of Damerau–Levenshtein
/// distance (a letter added, dropped, changed, or two neighbours swapped, each one typo), measured
/// from what was typed to the start of a name, so "Hambrug" and "Hambr" both find "Hamburg". A match
/// must be close letter by letter: names sharing only scattered letters are never within reach.
public enum TypoDistance {
    /// Typos forgiven in what was typed: one in a short word, two in a longer one.
    public static func allowed(forLength length: Int) -> Int { length <= 5 ? 1 : 2 }

    /// Whether `typed` is at most `allowed` typos from some start of `name` (no shorter than
    /// `typed` less `allowed` letters). Rows stop as soon as every cell is past `allowed`.
    public static func within(_ allowed: Int, _ typed: [Unicode.Scalar], _ name: [Unicode.Scalar]) -> Bool {
        let count = typed.count
        guard count > 0, name.count >= count - allowed else { return false }
        // Only starts of `name` up to `count + allowed` letters can be close enough.
        let columns = min(name.count, count + allowed)
        var beforePrevious = [Int](repeating: 0, count: columns + 1)
        var previous = Array(0...columns)
        var current = [Int](repeating: 0, count: columns + 1)
        for i in 1...count {
            current[0] = i
            var best = i
            for j in 1...columns {
                let cost = typed[i - 1] == name[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, typed[i - 1] == name[j - 2], typed[i - 2] == name[j - 1] {
                    value = min(value, beforePrevious[j - 2] + 1)
                }
                current[j] = value
                best = min(best, value)
            }
            if best > allowed { return false }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        // The typed text against a start of the name at least `count - allowed` letters long.
        return previous[max(count - allowed, 0)...columns].contains { $0 <= allowed }
    }
}
