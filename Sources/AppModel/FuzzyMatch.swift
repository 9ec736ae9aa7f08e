/// Fuzzy matching for the list filter: the query's characters must appear in order (case-insensitive);
/// matches at word starts and in runs score higher, so "gp" finds "Greater Portland" first.
public enum FuzzyMatch {
    /// The match score and the matched character offsets, or nil when `text` does not match.
    public static func match(_ query: String, in text: String) -> (score: Int, positions: [Int])? {
        let needle = Array(query.lowercased().filter { $0 != " " })
        if needle.isEmpty { return (0, []) }
        let haystack = Array(text.lowercased())
        var positions: [Int] = []
        var score = 0, next = 0, previous = -2
        for (offset, character) in haystack.enumerated() where next < needle.count && character == needle[next] {
            let wordStart = offset == 0 || !haystack[offset - 1].isLetter && !haystack[offset - 1].isNumber
            score += 1 + (wordStart ? 6 : 0) + (offset == previous + 1 ? 8 : 0)
            positions.append(offset)
            previous = offset
            next += 1
        }
        guard next == needle.count else { return nil }
        return (score - haystack.count / 16, positions)
    }
}
