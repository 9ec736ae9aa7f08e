import AppModel
import ArcGISModel
import Testing

/// Drives `App.update` the way the program does, and holds a test to every change it makes: each
/// `send` says how the state should differ afterwards (on a copy of the state before), and the
/// state after must equal that exactly — a change the test did not name fails it. The effects
/// come back to be checked, and their answers are sent as events like any other.
struct TestStore {
    private(set) var state: AppState

    init(_ state: AppState) { self.state = state }

    /// Sends `event`; `change` describes everything it should change.
    @discardableResult
    mutating func send(_ event: Event, sourceLocation: SourceLocation = #_sourceLocation,
                       _ change: (inout AppState) -> Void = { _ in }) -> [Effect] {
        var expected = state
        change(&expected)
        let effects = App.update(&state, event)
        // Compared first: the expectation would print both states whole.
        let isAsDescribed = state == expected
        #expect(isAsDescribed, "the state after \(event) differs from the one described in \(Self.differences(state, expected))",
                sourceLocation: sourceLocation)
        return effects
    }

    /// Where two values differ, as paths of their properties ("map.viewport"), a few levels down:
    /// a failure names the change, not two dumps of the whole state.
    static func differences(_ a: Any, _ b: Any, path: String = "", depth: Int = 3) -> [String] {
        let left = Mirror(reflecting: a), right = Mirror(reflecting: b)
        let leftChildren = Array(left.children), rightChildren = Array(right.children)
        guard depth > 0, !leftChildren.isEmpty, leftChildren.count == rightChildren.count, left.displayStyle != .collection,
              left.displayStyle != .dictionary, left.displayStyle != .set else {
            return String(reflecting: a) == String(reflecting: b) ? [] : [path.isEmpty ? "the whole value" : path]
        }
        return zip(leftChildren, rightChildren).enumerated().flatMap { index, pair in
            let name = pair.0.label ?? "\(index)"
            return differences(pair.0.value, pair.1.value, path: path.isEmpty ? name : "\(path).\(name)", depth: depth - 1)
        }
    }

    /// A key, as `send(.terminal(.key(key)))`.
    @discardableResult
    mutating func press(_ key: Key, sourceLocation: SourceLocation = #_sourceLocation, _ change: (inout AppState) -> Void = { _ in }) -> [Effect] {
        send(.terminal(.key(key)), sourceLocation: sourceLocation, change)
    }
}

@Suite("Test store")
struct TestStoreTests {
    @Test func copyingTheDirectionsChangesTheNoticeAndNothingElse() throws {
        var state = DirectionsTests().searched(portlandFirst: true)
        _ = Fixture.keys(&state, .character("t"))
        guard case .directions(.findRoute(let request, let stops, _, nil))? = Fixture.keys(&state, .enter).first else { Issue.record("not asked"); return }
        let route = DirectionsTests.route(stops.compactMap { stop in stop.point.map { RouteStop(name: stop.name, point: $0) } })
        _ = App.update(&state, .directions(.routeFound(request: request, .success(route))))
        var store = TestStore(state)
        // Settled once the route is in: the plain mode would read its next command now.
        #expect(store.state.isSettled)
        let lines = try #require(store.state.directions.current).lines()
        let effects = store.press(.character("Y")) { state in
            state.notice = .directions(.copied(steps: route.maneuvers.count))
            state.requests.noticeSerial += 1
        }
        #expect(effects == [.copy(lines.joined(separator: "\n"))])
    }

    /// The store fails a test that leaves out a change: `Y` changes the notice, which this does
    /// not name.
    @Test func aChangeLeftUnsaidFails() throws {
        var store = TestStore(DirectionsTests().searched(portlandFirst: true))
        withKnownIssue("the notice changed and the test did not say so") {
            store.press(.character("Y"))
        }
    }
}
