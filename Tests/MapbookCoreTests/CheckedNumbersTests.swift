import Foundation
import MapbookCore
import Testing

/// Numbers from servers and files reach integers only through the checked conversions.
@Suite struct CheckedNumbersTests {
    @Test func aWholeNumberInRangeOrNone() {
        #expect(41.6.int(in: 0...100) == 42)
        #expect((-0.4).int(in: 0...100) == 0)
        #expect(100.4.int(in: 0...100) == 100)
        #expect(100.6.int(in: 0...100) == nil)
        #expect((-1.0).int(in: 0...100) == nil)
        for hostile in [1e30, -1e30, 9.3e18, Double.infinity, -Double.infinity, Double.nan, Double.greatestFiniteMagnitude] {
            #expect(hostile.int() == nil, "\(hostile)")
            #expect(hostile.int64() == nil, "\(hostile)")
        }
        #expect(2.9.int(rounding: .towardZero) == 2)
        #expect(JSONValue.number(1e30).int(in: 0...10) == nil)
        #expect(JSONValue.string(" 7 ").int(in: 0...10) == 7)
        #expect(JSONValue.number(1e30).int64 == nil)
        #expect(JSONValue.number(-12.7).int64 == -12)
    }

    @Test func clampingLandsEverythingSomewhereSane() {
        #expect(1e30.clampedInt(in: 0...255) == 255)
        #expect((-1e30).clampedInt(in: 0...255) == 0)
        #expect(Double.nan.clampedInt(in: 0...255) == 0)
        #expect(Double.nan.clampedInt(in: 5...9) == 5)
        #expect(Double.infinity.clampedInt() == Double.wholeLimit)
        #expect((-Double.infinity).clampedInt() == -Double.wholeLimit)
        #expect(12.5.clampedInt(in: 0...100, rounding: .down) == 12)
    }

    /// The texts that print a server's numbers never trap, whatever the number.
    @Test func sentencesTakeAnyNumber() {
        for hostile in [1e300, -1e300, 9.3e18, Double.infinity, Double.nan] {
            _ = Format.duration(minutes: hostile)
            _ = Format.distance(hostile)
            _ = Format.percent(hostile)
            _ = Format.scale(hostile)
        }
        #expect(Format.duration(minutes: 1e300) == "694444 d 11 h")
        #expect(Format.percent(2) == "100%" && Format.percent(-1) == "0%" && Format.percent(0.479) == "47%")
        #expect(Format.scale(24_000.4) == "1:24,000")
    }

    /// No Double is turned into an integer with a bare initializer in the sources: the argument of
    /// every `Int(…)`, `Int64(…)`, `UInt8(…)`… that rounds, divides a Double or reads a decoded
    /// number goes through `int(in:)` or `clampedInt(in:)` instead (a bare one traps past its range).
    @Test func theSourcesConvertNoDoubleUnchecked() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let call = try Regex(#"\bU?Int(?:8|16|32|64)?\("#)
        let doubleLike = try Regex(#"rounded|floor\(|ceil\(|trunc\(|\.double\b|Double\(|log2?\(|pow\(|sqrt|squareRoot|timeInterval|\.scale\b"#)
        let checked = try Regex(#"clampedInt\(|\.int\(in|\.int64\(|^\s*(exactly|clamping|truncatingIfNeeded|bitPattern):"#)
        let mapped = try Regex(#"\.(?:map|flatMap)\(U?Int(?:8|16|32|64)?\.init\)"#)
        let decoded = try Regex("double|Double|rounded")
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100, "the sources are read")
        for file in files where !file.hasSuffix("CheckedNumbers.swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: call) {
                var depth = 1, end = match.range.upperBound
                while end < text.endIndex, depth > 0 {
                    if text[end] == "(" { depth += 1 } else if text[end] == ")" { depth -= 1 }
                    end = text.index(after: end)
                }
                let argument = text[match.range.upperBound..<text.index(before: end)]
                if argument.contains(doubleLike), !argument.contains(checked) {
                    found.append("\(file): \(text[match.range.lowerBound..<end].prefix(100))")
                }
            }
            for line in text.split(separator: "\n") where line.contains(mapped) && line.contains(decoded) {
                found.append("\(file): \(line.trimmingCharacters(in: .whitespaces).prefix(100))")
            }
        }
        #expect(found.isEmpty, "unchecked conversions:\n\(found.joined(separator: "\n"))")
    }
}
