import AppModel
import Foundation
import ArcGISModel
import Testing

/// The root of the model stays small: a feature adds one case to `Event` and `Effect` (its slice's
/// actions and effects) and keeps its state in its own slice, so the root does not grow with every
/// feature.
@Suite("App shape")
struct AppShapeTests {
    @Test func theStateHasAtMostSixteenStoredProperties() {
        let state = AppState(portalHost: "portal.example", webMapID: ItemID("3bc3179f17da44a0ac0bfdac4ad15664")!)
        let stored = Mirror(reflecting: state).children.count
        #expect(stored <= AppState.storedPropertyLimit && AppState.storedPropertyLimit == 16, "AppState has \(stored) stored properties")
    }

    @Test(arguments: ["Event", "Effect"])
    func theRootHasAtMostFifteenCases(_ name: String) throws {
        let file = ModuleShapeTests.root.appendingPathComponent("Sources/AppModel/\(name).swift")
        let cases = try Self.topLevelCases(of: name, in: String(contentsOf: file, encoding: .utf8))
        #expect(cases.count >= 10 && cases.count <= 15, "\(name) has \(cases.count) cases: \(cases)")
    }

    /// The case names declared directly in `public enum NAME` (not in enums nested in it).
    static func topLevelCases(of name: String, in source: String) throws -> [String] {
        let lines = source.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("public enum \(name):") })
        let body = lines[(start + 1)...].prefix { $0 != "}" }
        return body.filter { $0.hasPrefix("    case ") }.flatMap { line in
            // "case a, b(X, Y)": the names, once what is in parentheses is left out.
            var depth = 0
            let outside = line.dropFirst("    case ".count).filter { character in
                if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
                return depth == 0 && character != ")"
            }
            return outside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }
}
