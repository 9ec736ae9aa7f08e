import MapRender
import UserFiles
import LibraryModel
import MapbookCore
import ArcGISModel

/// Network strings are made safe for the terminal as they enter the model, so nothing drawn later
/// can carry an escape sequence or a control character, or run for pages.
enum DisplayText {
    static func item(_ item: PortalItem) -> PortalItem {
        var clean = item
        clean.title = TerminalText.sanitizedLine(item.title, maxLength: 256)
        clean.type = TerminalText.sanitizedLine(item.type, maxLength: 64)
        clean.owner = item.owner.map { TerminalText.sanitizedLine($0, maxLength: 128) }
        clean.snippet = item.snippet.map { TerminalText.sanitizedLine($0, maxLength: 512) }
        clean.description = item.description.map { TerminalText.sanitizedParagraphs(HTMLText.plainText($0), maxLength: 8192) }
        clean.access = item.access.map { TerminalText.sanitizedLine($0, maxLength: 32) }
        clean.tags = item.tags.prefix(64).map { TerminalText.sanitizedLine($0, maxLength: 64) }
        return clean
    }

    static func area(_ area: MapArea) -> MapArea {
        var clean = area
        clean.item = item(area.item)
        clean.packages = area.packages.map { AreaPackage(item: item($0.item)) }
        if case .other(let value) = area.status { clean.status = .other(TerminalText.sanitizedLine(value, maxLength: 32)) }
        return clean
    }

    /// Layer titles, reasons and sentences from the services.
    static func estimate(_ estimate: AreaEstimate) -> AreaEstimate {
        func line(_ text: String) -> String { TerminalText.sanitizedLine(text, maxLength: 300) }
        return AreaEstimate(layers: estimate.layers.prefix(32).map { .init(title: line($0.title), measure: line($0.measure), bytes: $0.bytes) },
                            refused: estimate.refused.prefix(32).map(line), refusal: estimate.refusal.map(line), failure: estimate.failure.map(line))
    }

    static func webMap(_ map: WebMap) -> WebMap {
        var clean = map
        clean.basemapTitle = map.basemapTitle.map { TerminalText.sanitizedLine($0, maxLength: 128) }
        clean.basemapLayers = map.basemapLayers.map(layer)
        clean.operationalLayers = map.operationalLayers.map(layer)
        clean.bookmarks = bookmarks(map.bookmarks)
        return clean
    }

    /// A map's bookmarks as the lists show them: at most 256, each name one clean line.
    static func bookmarks(_ marks: [Bookmark]) -> [Bookmark] {
        marks.prefix(256).map { Bookmark(name: TerminalText.sanitizedLine($0.name, maxLength: 128), extent: $0.extent) }
    }

    /// A popup card is made of sanitized strings already (`PopupCard.make`); a card from elsewhere
    /// is cleaned the same way, idempotently.
    static func identifyHit(_ hit: IdentifyHit) -> IdentifyHit {
        var clean = hit
        clean.card.layer = TerminalText.sanitizedLine(hit.card.layer, maxLength: 100)
        clean.card.title = TerminalText.sanitizedLine(hit.card.title, maxLength: 120)
        clean.card.rows = hit.card.rows.prefix(200).map {
            PopupCard.Row(label: TerminalText.sanitizedLine($0.label, maxLength: 60), value: TerminalText.sanitizedLine($0.value, maxLength: 500))
        }
        clean.card.text = hit.card.text.map { TerminalText.sanitizedParagraphs($0, maxLength: 4000) }
        return clean
    }

    /// Pins are checked when kept, but the file is the user's to edit.
    static func pin(_ pin: Pin) -> Pin {
        var clean = pin
        clean.title = TerminalText.sanitizedLine(pin.title, maxLength: 120)
        clean.note = pin.note.map { TerminalText.sanitizedLine($0, maxLength: 1000) }
        clean.link = pin.link.map { TerminalText.sanitizedLine($0, maxLength: 2000) }
        return clean
    }

    static func basemap(_ basemap: Basemap) -> Basemap {
        Basemap(title: basemap.title.map { TerminalText.sanitizedLine($0, maxLength: 128) }, layers: basemap.layers.prefix(32).map(layer))
    }

    static func basemapChoice(_ choice: BasemapChoice) -> BasemapChoice {
        BasemapChoice(item: item(choice.item), basemap: basemap(choice.basemap))
    }

    /// A route's stop names, mode and maneuver texts (the client sanitizes them; cleaned again,
    /// idempotently, since any service's answer may arrive here).
    static func route(_ route: Route) -> Route {
        var clean = route
        clean.stops = route.stops.map { RouteStop(name: TerminalText.sanitizedLine($0.name, maxLength: 120), point: $0.point) }
        clean.modeName = route.modeName.map { TerminalText.sanitizedLine($0, maxLength: 60) }
        clean.maneuvers = route.maneuvers.map { step in
            var step = step
            step.text = TerminalText.sanitizedLine(step.text, maxLength: 300)
            return step
        }
        return clean
    }

    private static func layer(_ layer: WebMapLayer) -> WebMapLayer {
        var clean = layer
        clean.title = layer.title.map { TerminalText.sanitizedLine($0, maxLength: 128) }
        clean.layerType = TerminalText.sanitizedLine(layer.layerType, maxLength: 64)
        clean.layers = layer.layers.map(Self.layer)
        return clean
    }
}
