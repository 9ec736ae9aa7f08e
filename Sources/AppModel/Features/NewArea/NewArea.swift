import Foundation
import ArcGISModel
import Geometry
import MapbookCore

/// What the user asks for when making a map area of their own; the runtime adds when.
public struct NewAreaOrder: Equatable, Sendable {
    public var name: String
    public var extent: GeoExtent
    public var detail: DetailLevel

    public init(name: String, extent: GeoExtent, detail: DetailLevel) { self.name = name; self.extent = extent; self.detail = detail }
}

/// What a new area would weigh, layer by layer, and what cannot be taken: as the runtime worked it
/// out, sanitized, for the card to show.
public struct AreaEstimate: Equatable, Sendable {
    public struct Layer: Equatable, Sendable {
        public var title: String
        /// "27 tiles", "3 features".
        public var measure: String
        public var bytes: Int64

        public init(title: String, measure: String, bytes: Int64) { self.title = title; self.measure = measure; self.bytes = bytes }
    }

    public var layers: [Layer]
    /// "Maine boundaries: its service does not allow exporting tiles".
    public var refused: [String]
    /// Why the area cannot be made as asked (too many tiles for a service), one sentence.
    public var refusal: String?
    /// Why it could not be estimated, one sentence.
    public var failure: String?

    public init(layers: [Layer] = [], refused: [String] = [], refusal: String? = nil, failure: String? = nil) {
        self.layers = layers; self.refused = refused; self.refusal = refusal; self.failure = failure
    }

    public var bytes: Int64 { layers.reduce(0) { $0 + $1.bytes } }
}

/// `N` on the map: a card for an area of your own — its name, its level of detail among the named
/// scales, and the estimate for them — over the part of the view it takes (outlined).
public struct AreaForm: Equatable, Sendable {
    public enum Field: Int, CaseIterable, Sendable { case name, detail }

    /// The name, and the level of detail among the named ones (coarse to fine: → is finer).
    public var fields: Form
    public var extent: GeoExtent
    /// The estimate for the level shown; nil while it is asked for.
    public var estimate: AreaEstimate?
    /// The estimate the card waits for: answers to earlier ones are dropped.
    public var request: RequestID

    public init(name: String, detail: DetailLevel, extent: GeoExtent, request: RequestID) {
        fields = Form([Form.Field("Name", .text(limit: 120), text: name),
                       Form.Field("Detail", .choice(Self.levels.map(Self.describe)), choice: Self.levels.firstIndex(of: detail) ?? 0)])
        self.extent = extent; self.request = request
    }

    /// The named levels, coarse to fine.
    static let levels: [DetailLevel] = DetailLevel.allCases.reversed()

    /// "City · level 12 · 1:144,448".
    static func describe(_ level: DetailLevel) -> String { "\(level.title) · level \(level.level) · \(Format.scale(level.scale))" }

    public var name: String { fields[Field.name.rawValue].text }
    public var detail: DetailLevel { Self.levels[fields[Field.detail.rawValue].choice] }
    public var focus: Field { Field(rawValue: fields.focus) ?? .name }
    public var problem: String? { fields.problem }

    public var order: NewAreaOrder { NewAreaOrder(name: name.trimmingCharacters(in: .whitespaces), extent: extent, detail: detail) }

    /// The part of the view an area takes: all but a tenth at each side, so its outline shows.
    static func extent(ofView view: GeoExtent) -> GeoExtent {
        let dx = (view.xmax - view.xmin) / 10, dy = (view.ymax - view.ymin) / 10
        return GeoExtent(xmin: view.xmin + dx, ymin: view.ymin + dy, xmax: view.xmax - dx, ymax: view.ymax - dy)
    }
}

extension App {
    /// `N`: the card, for the outlined part of the view, named "Area N", at the named level a few
    /// steps closer than the view; its estimate asked for at once.
    static func startNewArea(_ state: inout AppState) -> [Effect] {
        guard let map = state.map, let layout = state.layout, state.catalog.webMap != nil else { return [] }
        guard state.portal.isConnected, !state.portal.network.isCutOff else { state.notice = .newArea(.needsPortal); return [] }
        let view = map.viewport.geographicExtent(columns: layout.mapRect.width, rows: layout.mapRect.height)
        let taken = Set(state.catalog.areas.map { $0.item.title.lowercased() })
        let name = (1...).lazy.map { "Area \($0)" }.first { !taken.contains($0.lowercased()) }!
        let form = AreaForm(name: name, detail: DetailLevel.nearest(zoom: min(map.viewport.zoom + 3, Double(DetailLevel.street.level))),
                            extent: AreaForm.extent(ofView: view), request: state.requests.mint())
        state.overlay = .newArea(form)
        return [.newArea(.estimateArea(request: form.request, form.order))]
    }

    static func editAreaForm(_ state: inout AppState, _ edit: FormEdit) -> [Effect] {
        guard case .newArea(var form)? = state.overlay else { return [] }
        switch form.fields.apply(edit) {
        case .changed(AreaForm.Field.detail.rawValue):
            // Another level: its estimate (the earlier one's answer is dropped when it comes).
            form.estimate = nil
            form.request = state.requests.mint()
            state.overlay = .newArea(form)
            return [.newArea(.estimateArea(request: form.request, form.order))]
        case .changed, .unchanged:
            state.overlay = .newArea(form)
            return []
        case .cancel:
            state.overlay = nil
            return []
        case .save:
            return makeArea(&state, form)
        }
    }

    /// Enter: a name no area of the web map has, and a request the services take; then the card
    /// closes and the runtime asks the servers.
    private static func makeArea(_ state: inout AppState, _ form: AreaForm) -> [Effect] {
        var form = form
        let name = form.order.name
        let refusal = if name.isEmpty {
            "An area needs a name."
        } else if state.catalog.areas.contains(where: { $0.item.title.lowercased() == name.lowercased() }) {
            "An area of this web map is already called \(name)."
        } else {
            form.estimate?.refusal
        }
        if let refusal {
            form.fields.refuse(refusal, at: AreaForm.Field.name.rawValue)
            state.overlay = .newArea(form)
            return []
        }
        state.overlay = nil
        state.notice = .newArea(.making(name))
        return [.newArea(.makeArea(form.order))]
    }

    static func areaEstimated(_ state: inout AppState, request: RequestID, _ estimate: AreaEstimate) -> [Effect] {
        state.requests.answered(request)
        guard case .newArea(var form)? = state.overlay, form.request == request else { return [] }
        form.estimate = DisplayText.estimate(estimate)
        state.overlay = .newArea(form)
        return []
    }

    /// The servers prepare the area: listed (as yours) with their progress in its row.
    static func areaPreparing(_ state: inout AppState, _ area: MapArea, label: String) -> [Effect] {
        let clean = DisplayText.area(area)
        if !state.catalog.areas.contains(where: { $0.item.id == area.item.id }) { state.catalog.areas.append(clean) }
        state.library.preparing[area.item.id] = TerminalText.sanitizedLine(label, maxLength: 80)
        return []
    }

    /// Every job has its package: the area is downloaded like any other.
    static func areaPrepared(_ state: inout AppState, _ area: MapArea) -> [Effect] {
        let clean = DisplayText.area(area)
        if let index = state.catalog.areas.firstIndex(where: { $0.item.id == area.item.id }) {
            state.catalog.areas[index] = clean
        } else {
            state.catalog.areas.append(clean)
        }
        state.library.preparing[area.item.id] = nil
        return startDownload(&state, clean)
    }

    /// The area could not be made: said, and its row gone unless something of it is on this device.
    static func areaNotMade(_ state: inout AppState, _ id: ItemID?, sentence: String) -> [Effect] {
        if let id {
            state.library.preparing[id] = nil
            if state.library.downloads[id] == nil { state.catalog.areas.removeAll { $0.item.id == id } }
        }
        state.notice = .problem(TerminalText.sanitizedLine(sentence, maxLength: 400))
        return []
    }
}
