import AppModel
import ArcGISModel
import EventLoop
import Foundation
import LibraryModel
import MapbookCore
import OfflineLibrary

/// Areas of your own for the browser, through the `OnDemandExport` `mapbook area new` uses: the
/// web map's layers planned once, estimates for the card, then the servers' jobs followed (their
/// progress sent as it changes) until the area can be downloaded like any other. Exports an earlier
/// run left under way are followed again by their jobs' ids once the portal answers.
@UIActor
final class AreaMakerHandler {
    private let library: OfflineLibrary
    private let connection: PortalConnection
    private let send: EventSink
    private let tasks: TaskTracker
    /// The web map's layers as an export takes them: asked once (one runtime, one web map), unless
    /// a service could not be asked — then again next time.
    private var plan: OnDemandPlan?

    init(library: OfflineLibrary, connection: PortalConnection, send: EventSink, tasks: TaskTracker) {
        self.library = library; self.connection = connection; self.send = send; self.tasks = tasks
    }

    func estimate(request: RequestID, _ order: NewAreaOrder) {
        tasks.track { [self, send] in
            guard let maker = maker() else { return send(.newArea(.areaEstimated(request: request, AreaEstimate(failure: Notice.notConnected.sentence)))) }
            do {
                let plan = try await plan(maker)
                let spec = Self.spec(order)
                let estimates = await maker.estimate(plan, spec: spec)
                send(.newArea(.areaEstimated(request: request, AreaEstimate(
                    layers: estimates.map { estimate in
                        let measure = estimate.tiles.map { "\($0.formatted()) tile\($0 == 1 ? "" : "s")" }
                            ?? estimate.features.map { "\($0.formatted()) feature\($0 == 1 ? "" : "s")" } ?? "its features"
                        return AreaEstimate.Layer(title: estimate.layer.title, measure: measure, bytes: estimate.bytes)
                    },
                    refused: plan.refused.map { "\($0.title): \($0.reason)" },
                    refusal: OnDemandExport.tooManyTiles(plan, spec: spec)?.userSentence))))
            } catch {
                send(.newArea(.areaEstimated(request: request, AreaEstimate(failure: error.userSentence))))
            }
        }
    }

    func make(_ order: NewAreaOrder) {
        tasks.track { [self, send] in
            guard let maker = maker() else { return send(.newArea(.areaNotMade(nil, sentence: Notice.notConnected.sentence))) }
            let spec = Self.spec(order)
            do {
                if maker.nameIsTaken(spec.name, among: []) {
                    throw LibraryError.cannotMake(title: spec.name, reason: "an area on this device is already called that")
                }
                let export = try await maker.start(spec, plan: try await plan(maker))
                await follow(export, maker: maker)
            } catch {
                send(.newArea(.areaNotMade(nil, sentence: error.userSentence)))
            }
        }
    }

    /// Exports an earlier run left under way: those whose area arrived are done with, the others
    /// followed again by their jobs' ids (and their downloads resumed from their bytes).
    func resume() {
        guard let maker = maker() else { return }
        for export in library.pendingExports() {
            if library.downloadRecord(export.areaID) != nil {
                maker.finished(export)
            } else {
                tasks.track { [self] in await follow(export, maker: maker) }
            }
        }
    }

    /// Follows the export's jobs, listing the area with their progress, then hands the area to the
    /// model to download. The export's file stays until the area has arrived (see `resume`); one
    /// that fails is forgotten (its tile jobs cancelled) and said in one sentence.
    private func follow(_ export: PendingExport, maker: OnDemandExport) async {
        let listed = MapArea.onDemand(id: export.areaID, spec: export.spec, packages: [], exported: export.submittedAt)
        send(.newArea(.areaPreparing(listed, label: ServiceJobStatus.waiting.label)))
        let (labels, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
        let relay = Task { @UIActor [send] in
            for await label in labels { send(.newArea(.areaPreparing(listed, label: label))) }
        }
        do {
            let area = try await maker.prepare(export) { continuation.yield($0.label) }
            continuation.finish()
            await relay.value
            send(.newArea(.areaPrepared(area)))
        } catch {
            continuation.finish()
            await relay.value
            if !Task.isCancelled { await maker.forget(export) }
            send(.newArea(.areaNotMade(export.areaID, sentence: error.userSentence)))
        }
    }

    private func maker() -> OnDemandExport? {
        connection.client.map { OnDemandExport(library: library, client: $0) }
    }

    private func plan(_ maker: OnDemandExport) async throws -> OnDemandPlan {
        if let plan { return plan }
        let made = await maker.plan(try await maker.client.webMap(library.webMapID))
        if made.isComplete { plan = made }
        return made
    }

    private static func spec(_ order: NewAreaOrder) -> OnDemandSpec {
        OnDemandSpec(name: order.name, extent: order.extent, maxLevel: order.detail.level, detail: order.detail,
                     createdAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    }
}

extension AreaMakerHandler {
    /// Does the work `NewAreaFeature` asks for.
    func perform(_ effect: NewAreaFeature.Effect) {
        switch effect {
        case .estimateArea(let request, let order): estimate(request: request, order)
        case .makeArea(let order): make(order)
        case .resumeAreaExports: resume()
        }
    }
}
