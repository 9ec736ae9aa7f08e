import EventLoop
import Foundation
import Testing

/// Heavy work runs on mapbook's own threads, not the cooperative pool nor the UI thread: the body's
/// own synchronous work, nonisolated calls, the default actors they reach (a tile loader) and the
/// child tasks they start.
@Suite struct WorkPoolTests {
    private actor Loader {
        func onPool() -> Bool { WorkPool.shared.isPoolThread }
    }

    private nonisolated func onPool() async -> Bool { WorkPool.shared.isPoolThread }

    @Test @UIActor func nonisolatedWorkActorsAndChildTasksRunOnThePool() async {
        let loader = Loader()
        let places = await onWorkPool {
            let direct = await onPool()
            let actor = await loader.onPool()
            let children = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
                for _ in 0..<4 { group.addTask { WorkPool.shared.isPoolThread } }
                var places: [Bool] = []
                for await place in group { places.append(place) }
                return places
            }
            return [WorkPool.shared.isPoolThread, direct, actor] + children
        }
        #expect(places == Array(repeating: true, count: 7), "the body itself too, though the caller is on the UI actor")
        #expect(await onPool() == false, "without the preference: the cooperative pool")
        // Back on the UI thread afterwards.
        #expect(UIEventLoop.shared.isLoopThread)
    }

    @Test func errorsPassThrough() async {
        struct Failure: Error {}
        await #expect(throws: Failure.self) { try await onWorkPool { () async throws(Failure) -> Int in throw Failure() } }
    }
}

