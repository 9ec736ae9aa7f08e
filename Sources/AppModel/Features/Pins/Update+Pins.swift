import Foundation
import ArcGISModel
import UserFiles
import MapRender
import MapbookCore
import LibraryModel
import Geometry

/// A pin being written: where, its fields (title, note, link); while the form is busy the keys
/// wait for the store's answer.
public struct PinForm: Equatable, Sendable {
    public enum Field: Int, CaseIterable, Sendable { case title, note, link }

    /// The pin being edited; nil for a new one.
    public var editing: String?
    public var point: GeoPoint
    /// The fix's accuracy, metres, when the point is this device's position.
    public var accuracy: Double?
    public var fields: Form

    public init(point: GeoPoint, accuracy: Double? = nil, editing: Pin? = nil) {
        self.point = point
        self.accuracy = accuracy
        self.editing = editing?.id
        fields = Form([Form.Field("Title", .text(limit: 120), text: editing?.title ?? ""),
                       Form.Field("Note", .text(limit: 1000), text: editing?.note ?? ""),
                       Form.Field("Link", .text(limit: 2000), text: editing?.link ?? "")])
    }

    public var title: String { fields[Field.title.rawValue].text }
    public var note: String { fields[Field.note.rawValue].text }
    public var link: String { fields[Field.link.rawValue].text }
    public var focus: Field { Field(rawValue: fields.focus) ?? .title }
    public var isSaving: Bool { fields.isBusy }
    public var problem: String? { fields.problem }
}

/// What the runtime keeps: a new pin (no id) or an edited one.
public struct PinDraft: Equatable, Sendable {
    public var id: String?
    public var title: String
    public var note: String?
    public var link: String?
    public var point: GeoPoint
    public var accuracy: Double?

    public init(id: String?, title: String, note: String?, link: String?, point: GeoPoint, accuracy: Double? = nil) {
        self.id = id; self.title = title; self.note = note; self.link = link; self.point = point; self.accuracy = accuracy
    }
}

/// Pins: `p` writes one at the centre of the map, `P` lists them (Enter flies there, `e` edits,
/// `x` deletes, `o` opens the link — each asked first where it cannot be undone or leaves mapbook).
extension App {
    static func dropPin(_ state: inout AppState) -> [Effect] {
        guard let point = state.mapFocus else { return [] }
        // At this device's position (the view following it): the fix's accuracy goes with the pin.
        let accuracy = point == state.position?.point ? state.places.here?.accuracy : nil
        state.overlay = .pinForm(PinForm(point: point, accuracy: accuracy))
        return []
    }

    static func showPins(_ state: inout AppState) -> [Effect] {
        guard state.map != nil else { return [] }
        guard !state.pins.all.isEmpty else { state.notice = .pins(.noPins); return [] }
        state.withMap { $0.panel = .pins }
        let unplaced = state.pins.all.filter { state.pins.places[$0.id] == nil }
        return state.portal.network.isCutOff || unplaced.isEmpty ? [] : [.pins(.describePins(unplaced))]
    }

    /// Keys in the pins table; nil for those the map handles.
    static func inPins(_ state: inout AppState, _ intent: Intent) -> [Effect]? {
        guard let map = state.map, map.panel == .pins, state.pins.all.indices.contains(map.panelSelection) else { return nil }
        let pin = state.pins.all[map.panelSelection]
        switch intent {
        case .open:
            let point = MercatorPoint(GeoPoint(longitude: pin.longitude, latitude: pin.latitude))
            state.withMap { map in
                map.panel = nil
                map.viewport = MapViewport(center: point, zoom: max(map.viewport.zoom, 12))
                map.pin = MapPin(point: point.geographic, label: pin.title)
            }
            return requestMapDraw(&state)
        case .map(.editPin):
            state.overlay = .pinForm(PinForm(point: GeoPoint(longitude: pin.longitude, latitude: pin.latitude), editing: pin))
            return []
        case .area(.remove):
            state.overlay = .confirm(Confirmation(question: "Delete the pin \(pin.title)?", detail: "It cannot be brought back.",
                                                  action: .deletePin(id: pin.id)))
            return []
        case .map(.openLink):
            guard let link = pin.link else { state.notice = .problem("\(pin.title) has no link."); return [] }
            state.overlay = .confirm(Confirmation(question: "Open this link in the browser?", detail: link, action: .openLink(link)))
            return []
        default:
            return nil
        }
    }

    static func editPinForm(_ state: inout AppState, _ edit: FormEdit) -> [Effect] {
        guard case .pinForm(var form)? = state.overlay else { return [] }
        switch form.fields.apply(edit) {
        case .changed, .unchanged:
            state.overlay = .pinForm(form)
            return []
        case .cancel:
            state.overlay = nil
            return []
        case .save:
            guard !form.title.trimmingCharacters(in: .whitespaces).isEmpty else {
                form.fields.refuse("A pin needs a title.", at: PinForm.Field.title.rawValue)
                state.overlay = .pinForm(form)
                return []
            }
            form.fields.isBusy = true
            form.fields.problem = nil
            state.overlay = .pinForm(form)
            func optional(_ text: String) -> String? { text.trimmingCharacters(in: .whitespaces).isEmpty ? nil : text }
            return [.pins(.savePin(PinDraft(id: form.editing, title: form.title, note: optional(form.note), link: optional(form.link), point: form.point,
                                            accuracy: form.accuracy)))]
        }
    }

    static func pinsLoaded(_ state: inout AppState, _ pins: [Pin], problem: String?) -> [Effect] {
        let before = Set(state.pins.all.map(\.id))
        state.pins.all = pins.map(DisplayText.pin)
        if let problem { state.notice = .problem(TerminalText.sanitizedLine(problem, maxLength: 400)) }
        var effects: [Effect] = []
        if case .pinForm(let form)? = state.overlay, form.isSaving {
            state.overlay = nil
            state.notice = .pins(.pinKept(TerminalText.sanitizedLine(form.title, maxLength: 120)))
            // A new pin's place is asked for at once, while the network is there.
            let added = state.pins.all.filter { !before.contains($0.id) }
            if form.editing == nil, !added.isEmpty, !state.portal.network.isCutOff { effects.append(.pins(.describePins(added))) }
        }
        let count = state.pins.all.count
        state.withMap { map in
            guard map.panel == .pins else { return }
            if count == 0 { map.panel = nil }
            map.panelSelection = min(map.panelSelection, max(count - 1, 0))
        }
        return effects
    }

    static func pinNotSaved(_ state: inout AppState, _ sentence: String) -> [Effect] {
        guard case .pinForm(var form)? = state.overlay else {
            state.notice = .problem(TerminalText.sanitizedLine(sentence, maxLength: 400))
            return []
        }
        form.fields.isBusy = false
        let clean = TerminalText.sanitizedLine(sentence, maxLength: 400)
        form.fields.refuse(clean, at: (clean.contains("link") ? PinForm.Field.link : form.focus).rawValue)
        state.overlay = .pinForm(form)
        return []
    }
}
