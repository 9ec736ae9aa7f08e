import Testing
@testable import AppModel

@Suite("No key hides another by accident")
struct KeyShadowingTests {
    /// Keys of a context that also work everywhere: the context's binding wins there, so it must
    /// say it means to (`shadows`), or the global action silently stops working in that context.
    static func shadowed(_ bindings: [KeyBinding]) -> [String] {
        let global = bindings.filter { $0.context == .everywhere && $0.intent != nil }
        // (The pan keys have no intent of their own: they are the moves, which pan in the map.)
        return bindings.filter { [.map, .list].contains($0.context) && $0.intent != nil && !$0.shadowsGlobalKeys }.flatMap { binding in
            binding.keys.compactMap { key in
                global.first { $0.keys.contains(key) && $0.intent != binding.intent }
                    .map { "\(binding.label) (\(binding.summary)) hides \($0.label) (\($0.summary))" }
            }
        }
    }

    @Test func theTableSaysWhereAKeyHidesAGlobalOne() {
        #expect(Self.shadowed(KeyMap.bindings) == [])
    }

    @Test func aKeyGivenInTheConfigDoesNotHideAGlobalOneEither() throws {
        #expect(Self.shadowed(KeyMap.bindings(overriding: [.ruler: "x", .identify: "I"])) == [])
    }

    @Test func theCheckFindsAShadow() {
        var bindings = KeyMap.bindings
        let map = try! #require(bindings.firstIndex { $0.intent == .map(.zoomIn) })
        bindings[map].keys.append(.character("d"))
        #expect(Self.shadowed(bindings).count == 1)
    }
}
