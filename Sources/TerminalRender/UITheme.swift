import Foundation
import AppModel
import MapRender
import MapbookCore
import TerminalCanvas
import UserFiles

/// The styles of the screens' parts: in 256 colours, or with attributes only (`NO_COLOR`, or a
/// terminal without colour), where selection is shown in reverse video.
public struct UITheme: Sendable {
    public var colors: Bool
    public var map: MapTheme

    public var header: CellStyle
    public var headerDim: CellStyle
    public var statusBar: CellStyle
    public var online: CellStyle
    public var offline: CellStyle
    public var title: CellStyle
    public var dim: CellStyle
    /// Added to the selected row's title.
    public var selectedTitle: CellStyle
    /// Laid over the selected row, across its width: while the list has focus, and while the map does.
    public var selectedRow: CellStyle
    public var selectedRowUnfocused: CellStyle
    /// The colour the selected row's text in the terminal's own colour takes on the band: the
    /// terminal's own may be dark on a dark band (a light terminal with this dark theme).
    public var selectedRowText: PaletteIndex?
    public var marker: CellStyle
    public var match: CellStyle
    public var good: CellStyle
    public var warning: CellStyle
    public var error: CellStyle
    public var separator: CellStyle
    public var heading: CellStyle
    public var label: CellStyle
    public var card: CellStyle

    public static let color = UITheme(
        colors: true, map: MapTheme(),
        header: CellStyle(foreground: 231, background: 24, bold: true),
        headerDim: CellStyle(foreground: 152, background: 24),
        statusBar: CellStyle(foreground: 252, background: 236),
        online: CellStyle(foreground: 114, background: 236, bold: true),
        offline: CellStyle(foreground: 210, background: 236, bold: true),
        title: CellStyle(bold: true),
        dim: CellStyle(foreground: 246),
        selectedTitle: CellStyle(),
        selectedRow: CellStyle(background: 237),
        selectedRowUnfocused: CellStyle(background: 235),
        selectedRowText: 255,
        marker: CellStyle(foreground: 220, bold: true),
        match: CellStyle(foreground: 220, bold: true, underline: true),
        good: CellStyle(foreground: 114),
        warning: CellStyle(foreground: 179),
        error: CellStyle(foreground: 203, bold: true),
        separator: CellStyle(foreground: 240),
        heading: CellStyle(foreground: 117, bold: true),
        label: CellStyle(foreground: 246),
        card: CellStyle(foreground: 252, background: 235))

    /// For terminals with a light background: dark text, pale bars and cards.
    public static let light = UITheme(
        colors: true, map: .light,
        header: CellStyle(foreground: 231, background: 25, bold: true),
        headerDim: CellStyle(foreground: 153, background: 25),
        statusBar: CellStyle(foreground: 236, background: 252),
        online: CellStyle(foreground: 28, background: 252, bold: true),
        offline: CellStyle(foreground: 160, background: 252, bold: true),
        title: CellStyle(bold: true),
        dim: CellStyle(foreground: 243),
        selectedTitle: CellStyle(),
        selectedRow: CellStyle(background: 253),
        selectedRowUnfocused: CellStyle(background: 255),
        selectedRowText: 235,
        marker: CellStyle(foreground: 166, bold: true),
        match: CellStyle(foreground: 166, bold: true, underline: true),
        good: CellStyle(foreground: 28),
        warning: CellStyle(foreground: 130),
        error: CellStyle(foreground: 160, bold: true),
        separator: CellStyle(foreground: 248),
        heading: CellStyle(foreground: 25, bold: true),
        label: CellStyle(foreground: 243),
        card: CellStyle(foreground: 236, background: 255))

    public static let monochrome = UITheme(
        colors: false, map: MapTheme(),
        header: CellStyle(bold: true, reverse: true),
        headerDim: CellStyle(reverse: true),
        statusBar: CellStyle(reverse: true),
        online: CellStyle(bold: true, reverse: true),
        offline: CellStyle(bold: true, reverse: true),
        title: CellStyle(bold: true),
        dim: CellStyle(dim: true),
        selectedTitle: CellStyle(),
        selectedRow: CellStyle(reverse: true),
        selectedRowUnfocused: CellStyle(underline: true),
        selectedRowText: nil,
        marker: CellStyle(bold: true),
        match: CellStyle(bold: true, underline: true),
        good: CellStyle(),
        warning: CellStyle(bold: true),
        error: CellStyle(bold: true),
        separator: CellStyle(),
        heading: CellStyle(bold: true, underline: true),
        label: CellStyle(dim: true),
        card: CellStyle())
}

extension UITheme {
    /// The theme chosen in the settings, on a terminal with `colorCount` colours: no colour at all
    /// with `NO_COLOR` or fewer than 8; `auto` is the light theme on a light background.
    public static func chosen(_ choice: ColorTheme, noColor: Bool, colorCount: Int, lightBackground: Bool? = nil) -> UITheme {
        if noColor || colorCount < 8 { return .monochrome }
        switch choice {
        case .auto: return lightBackground == true ? .light : .color
        case .dark: return .color
        case .light: return .light
        case .mono: return .monochrome
        }
    }

    /// The style this theme gives a role of text.
    func style(for role: TextRole) -> CellStyle {
        switch role {
        case .plain: .plain
        case .title: title
        case .dim: dim
        case .heading: heading
        case .label: label
        case .good: good
        case .warning: warning
        case .error: error
        case .match: match
        }
    }

    /// A line of the model's styled text as spans of this theme's styles.
    func spans(_ line: [StyledText]) -> [Span] { line.map { Span($0.text, style(for: $0.role)) } }
}

/// How the screens are drawn: characters, colours and the geography under the overview.
public struct RenderOptions: Sendable {
    public var glyphs: GlyphSet
    public var theme: UITheme
    public var geography: OverviewGeography
    /// Where times of day (an arrival) are told in.
    public var timeZone: TimeZone

    public init(glyphs: GlyphSet = .unicode, theme: UITheme = .color, geography: OverviewGeography = .empty, timeZone: TimeZone = .current) {
        self.glyphs = glyphs; self.theme = theme; self.geography = geography; self.timeZone = timeZone
    }
}
