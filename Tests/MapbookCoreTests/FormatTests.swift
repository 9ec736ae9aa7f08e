import Foundation
import MapbookCore
import Testing

@Suite struct FormatTests {
    @Test(arguments: [
        (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (44_150_784, "42.1 MiB"),
        (1_048_575, "1.0 MiB"), (5 * 1_073_741_824, "5.0 GiB"), (-5, "0 B"),
    ] as [(Int64, String)])
    func bytes(count: Int64, text: String) {
        #expect(Format.bytes(count) == text)
    }

    @Test func datesAreUTC() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(Format.date(date) == "2023-11-14")
        #expect(Format.timestamp(date) == "2023-11-14T22:13:20Z")
    }
}

@Suite struct GeometryTests {
    @Test func webMercatorRoundTrips() {
        let p = WebMercator.projected(longitude: -68.77, latitude: 44.80)
        let back = WebMercator.geographic(x: p.x, y: p.y)
        #expect(abs(back.longitude - -68.77) < 1e-9)
        #expect(abs(back.latitude - 44.80) < 1e-9)
        #expect(abs(WebMercator.projected(longitude: 180, latitude: 0).x - WebMercator.originShift) < 1e-6)
    }

    @Test func resolutionsMatchTheArcGISTilingScheme() {
        #expect(abs(WebMercator.resolution(zoom: 0) - 156_543.033928) < 1e-5)
        #expect(abs(WebMercator.resolution(zoom: 0, tileSize: 512) - 78_271.516964) < 1e-5)
    }

    @Test func tileContainingAPoint() {
        let p = WebMercator.projected(longitude: -69.0, latitude: 45.2)  // central Maine
        let tile = WebMercator.tile(containingX: p.x, y: p.y, zoom: 4)
        #expect(tile.column == 4 && tile.row == 5)
        let far = WebMercator.tile(containingX: 1e12, y: -1e12, zoom: 2)
        #expect(far.column == 3 && far.row == 3, "clamped to the grid")
    }

    @Test func envelopeToGeographic() throws {
        let env = Envelope(xmin: -7913000, ymin: 5300000, xmax: -7452000, ymax: 6015000, spatialReference: .webMercator)
        let geo = try #require(env.geographic)
        #expect(geo.xmin < -71 && geo.xmax > -67)
        #expect(Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1, spatialReference: SpatialReference(wkid: 2249)).geographic == nil)
    }
}

@Suite struct ValueTypeTests {
    @Test func itemIDs() {
        #expect(ItemID("3BC3179F17DA44A0AC0BFDAC4AD15664") == .exploreMaine)
        for bad in ["", "3bc3179f17da44a0ac0bfdac4ad1566", "3bc3179f17da44a0ac0bfdac4ad15664a", "../../../../../../../../../../etc",
                    "3bc3179f17da44a0ac0bfdac4ad1566g"] {
            #expect(ItemID(bad) == nil, "\(bad)")
        }
    }

    @Test func jsonAccessorsForgiveTypeVariation() throws {
        let json = try JSONValue(parsing: Data(#"{"n":"42","s":7,"b":"true","z":null,"a":[1,"x"],"big":1e300}"#.utf8))
        #expect(json["n"]?.int64 == 42)
        #expect(json["s"]?.string == "7")
        #expect(json["b"]?.bool == true)
        #expect(json["z"]?.string == nil)
        #expect(json["a"]?.stringArray == ["1", "x"])
        #expect(json["big"]?.int64 == nil)
        #expect(json["missing"] == nil)
        #expect(json["a"]?[5] == nil)
        #expect(throws: (any Error).self) { try JSONValue(parsing: Data("{".utf8)) }
    }

    @Test func packagingStatus() {
        #expect(PackagingStatus(portalValue: "COMPLETE") == .complete)
        #expect(PackagingStatus(portalValue: nil) == .unknown)
        #expect(PackagingStatus(portalValue: "queued") == .other("queued"))
        #expect(!PackagingStatus(portalValue: "queued").isDownloadable)
    }
}

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

    @Test func themeAndGraphicsAreNamedValues() throws {
        let settings = try Settings(parsing: "theme = Light\ngraphics = blocks\n")
        #expect(settings.theme == .light && settings.graphics == .blocks && settings.value("theme") == "light")
        #expect(Settings().theme == .auto && Settings().graphics == .braille)
        do {
            _ = try Settings(parsing: "theme = solarized\ngraphics = sixel")
            Issue.record("expected problems")
        } catch {
            #expect(error.sentences == ["config line 1: theme is auto, dark, light, mono, not “solarized”.",
                                        "config line 2: graphics is braille, blocks, ascii, not “sixel”."])
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
