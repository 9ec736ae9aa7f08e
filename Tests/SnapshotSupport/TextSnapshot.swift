import Foundation
import Testing

/// Compares `text` with `directory/NAME.txt`. With MAPBOOK_RECORD_SNAPSHOTS=1 the file is
/// (re)written instead, and the test fails so a recording is never mistaken for a pass.
public func expectTextSnapshot(_ text: String, named name: String, in directory: URL,
                               sourceLocation: SourceLocation = #_sourceLocation) {
    let url = directory.appendingPathComponent(name + ".txt")
    let actual = text + "\n"
    if ProcessInfo.processInfo.environment["MAPBOOK_RECORD_SNAPSHOTS"] == "1" {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? actual.write(to: url, atomically: true, encoding: .utf8)
        Issue.record("recorded snapshot \(name)", sourceLocation: sourceLocation)
        return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        Issue.record("no snapshot \(name).txt; run with MAPBOOK_RECORD_SNAPSHOTS=1 to record it", sourceLocation: sourceLocation)
        return
    }
    guard expected != actual else { return }
    let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let firstDifference = zip(a, e).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, e.count)
    Issue.record("""
        snapshot \(name) differs from line \(firstDifference + 1):
        expected: \(firstDifference < e.count ? String(e[firstDifference]) : "(end)")
        actual:   \(firstDifference < a.count ? String(a[firstDifference]) : "(end)")
        """, sourceLocation: sourceLocation)
}
