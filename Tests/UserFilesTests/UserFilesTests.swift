import Foundation
import Testing
import ArcGISModel
import Geometry
import Location
import MapbookCore
@testable import UserFiles
import UserFiles

@Suite struct SettingsTests {
    @Test func readsKeyValueLinesWithComments() throws {
        #expect(try Settings(parsing: "").resumeDownloads)
        #expect(try !Settings(parsing: "# downloads\n  resume-downloads = false  # not on this laptop\n\n").resumeDownloads)
        #expect(try Settings(parsing: "resume-downloads=yes").resumeDownloads)
    }

    @Test func saysWhatItCouldNotUseAndKeepsTheRest() {
        do {
            _ = try Settings(parsing: "resume-downloads = false\ncolour = blue\nresume-downloads\nresume-downloads = maybe\u{1B}[2J")
            Issue.record("expected problems")
        } catch {
            #expect(!error.settings.resumeDownloads, "the good line still applies")
            #expect(error.sentences == ["config line 2: mapbook has no setting “colour”.",
                                        "config line 3 is not “key = value”.",
                                        "config line 4: resume-downloads is true or false, not “maybe”."])
        }
    }

    @Test func aMirrorIsAWebAddress() throws {
        #expect(try Settings(parsing: "mirror = http://mirror.site.example:8080\n").mirror == "http://mirror.site.example:8080")
        #expect(try Settings(parsing: "mirror = http://m:1").value("mirror") == "http://m:1")
        do {
            _ = try Settings(parsing: "mirror = /srv/mirror")
            Issue.record("expected a problem")
        } catch {
            #expect(error.sentences == ["config line 1: mirror is an http or https address, not “/srv/mirror”."])
        }
    }

    /// Where the location comes from: gpsd's address, or a fixed position; GPSD_HOST first.
    @Test func gpsdAndLocationAreAnAddressAndAPoint() throws {
        let settings = try Settings(parsing: "gpsd = 192.168.1.20:2948\nlocation = -68.2,44.39\n")
        #expect(settings.value("gpsd") == "192.168.1.20:2948" && settings.value("location") == "-68.2,44.39")
        let problems = #expect(throws: Settings.Problems.self) { try Settings(parsing: "gpsd = not a host\nlocation = 44.39 north") }
        #expect(problems?.sentences == ["config line 1: gpsd is host:port, such as 127.0.0.1:2947, not “not a host”.",
                                        "config line 2: location is longitude,latitude, such as -68.2,44.39, not “44.39 north”."])
        #expect(try LocationSource.chosen(environment: [:], gpsd: settings.gpsd, location: settings.location) == .gpsd(GPSDAddress("192.168.1.20:2948")!))
        #expect(try LocationSource.chosen(environment: ["GPSD_HOST": "10.0.0.5"], gpsd: settings.gpsd, location: nil) == .gpsd(GPSDAddress("10.0.0.5")!))
        #expect(try LocationSource.chosen(environment: [:], gpsd: nil, location: settings.location) == .fixed(GeoPoint(longitude: -68.2, latitude: 44.39)))
        #expect(try LocationSource.chosen(environment: [:], gpsd: nil, location: nil) == .gpsd(GPSDAddress("127.0.0.1:2947")!))
        #expect(throws: LocationSourceError(host: "x y")) { try LocationSource.chosen(environment: ["GPSD_HOST": "x y"], gpsd: nil, location: nil) }
    }

    @Test func themeAndGraphicsAreNamedValues() throws {
        let settings = try Settings(parsing: "theme = Light\ngraphics = blocks\n")
        #expect(settings.theme == .light && settings.graphics == .blocks && settings.value("theme") == "light")
        // Pictures where the terminal shows them, unless told otherwise.
        #expect(Settings().theme == .auto && Settings().graphics == .auto)
        #expect(try Settings(parsing: "graphics = SIXEL\n").graphics == .sixel)
        do {
            _ = try Settings(parsing: "theme = solarized\ngraphics = png")
            Issue.record("expected problems")
        } catch {
            #expect(error.sentences == ["config line 1: theme is auto, dark, light, mono, not “solarized”.",
                                        "config line 2: graphics is auto, kitty, sixel, iterm, off, braille, blocks, ascii, not “png”."])
        }
    }

    @Test func keysAreGivenToActionsOneCharacterEach() throws {
        let settings = try Settings(parsing: "key.download = D\nkey.quit = Q\n")
        #expect(settings.keys == [.download: "D", .quit: "Q"] && settings.value("key.download") == "D")
        #expect(settings.listedKeys.suffix(2) == ["key.download", "key.quit"])
        #expect(Settings.isKnown("key.layers") && !Settings.isKnown("key.fly"))
        do {
            _ = try Settings(parsing: "key.fly = f\nkey.download = Dd\nkey.cancel = Q\nkey.quit = Q")
            Issue.record("expected problems")
        } catch {
            #expect(error.sentences == ["config line 1: there is no action “fly” to give a key to.",
                                        "config line 2: key.download is one character, such as D, not “Dd”.",
                                        "config line 4: key.quit = Q, but Q is already the key for cancel."])
        }
        // Setting one that clashes is refused by name.
        #expect(throws: Settings.Problems.self) { try Settings.text("key.cancel = Q\n", setting: "key.quit", to: "Q") }
    }

    /// A value that would start a line of its own (another setting) or hold a comment is refused
    /// when set; nothing is written.
    @Test func valuesCannotInjectLinesOrComments() throws {
        for value in ["abc\nportal = http://evil", "abc\r\nportal = http://evil", "abc\rx", "ab#c", "a\u{2028}b", "a\u{0}b"] {
            let error = #expect(throws: Settings.Problems.self) { try Settings.text("", setting: "client-id", to: value) }
            #expect(error?.sentences.first?.hasPrefix("A value for client-id cannot hold") == true, "\(value.debugDescription)")
        }
        // A refused value for a known key is said of the value, not of a line of a file.
        let theme = #expect(throws: Settings.Problems.self) { try Settings.text("", setting: "theme", to: "purple") }
        #expect(theme?.sentences == ["theme is auto, dark, light, mono, not “purple”."])
    }

    /// CRLF (and CR) files read line by line; a line of invalid UTF-8 is named by number and the
    /// rest of the file still applies.
    @Test func crlfFilesAndStrayBytesKeepTheRest() throws {
        let crlf = try Settings(parsing: "theme = light\r\ngraphics = blocks\r\nresume-downloads = false\r\n")
        #expect(crlf.theme == .light && crlf.graphics == .blocks && !crlf.resumeDownloads)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-config-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var bytes = Data("theme = light\r\n".utf8)
        bytes += Data([0x63, 0x6C, 0xFF, 0x0A])  // "cl", a byte that is not UTF-8, LF
        bytes += Data("graphics = ascii\n".utf8)
        FileManager.default.createFile(atPath: folder + "/config", contents: bytes)
        let (settings, problems) = Settings.load(from: folder + "/config")
        #expect(settings.theme == .light && settings.graphics == .ascii)
        #expect(problems == ["config line 2 is not UTF-8 text."])
    }

    @Test func theFileFollowsXDG() {
        #expect(Settings.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/mapbook/config")
        #expect(Settings.path(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/mapbook/config")
        let missing = Settings.load(from: "/nonexistent/mapbook/config")
        #expect(missing.0 == Settings() && missing.1.isEmpty)
    }
}


/// The web maps opened lately: newest first, once each per portal, at most twenty; a damaged file
/// is an empty list that the next write replaces.
@Suite("Recent web maps")
struct RecentWebMapsTests {
    @Test func newestFirstOncePerPortalAndADamagedFileStartsAgain() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-recent-\(UUID())/recent.json").path
        let recent = RecentWebMaps(path: path)
        let a = "3bc3179f17da44a0ac0bfdac4ad15664", b = "0a11ce5ecdef4a7b9c1d2e3f40516273"
        recent.remember(RecentWebMap(portal: "https://www.arcgis.com", id: a, title: "A", opened: Date(timeIntervalSince1970: 1)))
        recent.remember(RecentWebMap(portal: "https://other.example.com", id: b, title: "B", opened: Date(timeIntervalSince1970: 2)))
        recent.remember(RecentWebMap(portal: "https://WWW.arcgis.com/sharing/rest/", id: a, title: "A again", opened: Date(timeIntervalSince1970: 3)))
        #expect(recent.all().map(\.title) == ["A again", "B"])
        #expect(recent.last(portal: URL(string: "https://www.arcgis.com")!)?.title == "A again")
        #expect(recent.last(portal: URL(string: "https://nowhere.example.com")!) == nil)
        for n in 0..<30 { recent.remember(RecentWebMap(portal: "https://p\(n).example.com", id: a, title: "\(n)", opened: Date())) }
        #expect(recent.all().count == RecentWebMaps.limit && recent.all().first?.title == "29")
        try Data("{".utf8).write(to: URL(fileURLWithPath: path))
        #expect(recent.all().isEmpty)
        recent.remember(RecentWebMap(portal: "https://www.arcgis.com", id: b, title: "fresh", opened: Date()))
        #expect(recent.all().map(\.title) == ["fresh"])
    }
}

/// Where the browser was on each web map: one entry per portal and web map, the newest kept; a
/// damaged file is forgotten, not fatal.
@Suite("Remembered views")
struct RememberedViewsTests {
    @Test func onePerWebMapAndPortalTheNewestKept() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-views-\(UUID())/views.json").path
        let views = RememberedViews(path: path)
        let a = "3bc3179f17da44a0ac0bfdac4ad15664"
        let map = RememberedView.Map(area: nil, longitude: -68.2, latitude: 44.3, zoom: 11.5, mode: "blocks")
        views.remember(RememberedView(order: "name", map: map), portal: "https://www.arcgis.com", webMap: a)
        views.remember(RememberedView(order: "size"), portal: "https://other.example.com", webMap: a)
        #expect(views.view(portal: "https://WWW.arcgis.com/sharing/rest", webMap: a) == RememberedView(order: "name", map: map))
        #expect(views.view(portal: "https://other.example.com", webMap: a)?.order == "size")
        #expect(views.view(portal: "https://www.arcgis.com", webMap: "0a11ce5ecdef4a7b9c1d2e3f40516273") == nil)
        for n in 0..<(RememberedViews.limit + 5) {
            views.remember(RememberedView(), portal: "https://p\(n).example.com", webMap: a, at: Date(timeIntervalSinceNow: Double(n)))
        }
        #expect(views.view(portal: "https://p\(RememberedViews.limit + 4).example.com", webMap: a) != nil)
        #expect(views.view(portal: "https://www.arcgis.com", webMap: a) == nil, "the oldest went")
        try Data("[".utf8).write(to: URL(fileURLWithPath: path))
        #expect(views.view(portal: "https://p1.example.com", webMap: a) == nil)
        views.remember(RememberedView(order: "name"), portal: "https://www.arcgis.com", webMap: a)
        #expect(views.view(portal: "https://www.arcgis.com", webMap: a)?.order == "name")
    }
}
