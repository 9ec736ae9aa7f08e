import AppModel
import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import SharedTestData
import TerminalCanvas
import Testing
import TestScheduling
import ArcGISModel
import Geometry
import UserFiles

/// `mapbook demo` in a real terminal (tmux): keys in, screen text out. Each step waits for the
/// screen to show what it expects and settle, with a deadline, rather than sleeping.
@Suite(.serialized, .tags(.endToEnd), .aheadOfQueuedTests) struct EndToEndTests {
    static var tmuxAvailable: Bool { Tmux.which("tmux") != nil }

    /// Against a sample portal with its bandwidth capped: `d` → the bar advances → Downloaded; an
    /// outage → offline within 3 s with only the downloaded area listed and its details open; the
    /// portal back → online and the whole list again.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func downloadThenLoseTheNetworkThenGetItBack() async throws {
        var faults = SampleFaults()
        // About ten seconds for the area: the bar stays long enough to be seen twice on a loaded machine.
        faults.bytesPerSecond = 200_000
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer { tmux.close() }

        tmux.send("j", "j", "j", "j")
        _ = try await tmux.waitFor("5/7")
        tmux.send("d")
        // The first bar may come before the total is known (bytes, no percentage): wait for one.
        let first = try await tmux.waitUntil("a bar with a percentage") { $0.contains("Downloading ▕") && Self.percent(in: $0) >= 0 }
        #expect(Self.percent(in: first) >= 0 && Self.percent(in: first) < 100)
        // The bar advances: a higher percentage, or on past the bytes (copying the layers, then
        // done) — on a loaded machine the bytes may end between two looks.
        try await tmux.waitUntil("the bar to advance from \(Self.percent(in: first))%", timeout: 30) { screen in
            Self.percent(in: screen) > Self.percent(in: first) || screen.contains("copying layers") || screen.contains("Downloaded · ")
        }
        var screen = try await tmux.waitFor("Downloaded · 2.1 MiB", timeout: 30)
        #expect(screen.contains("Greater Portland downloaded · 2.1 MiB, verified"))

        // The portal goes away (it refuses connections): "not answering" by itself, with no key
        // pressed, and only what is on this device listed. A probe every 2 s and 0.8 s to confirm
        // make it under 3 s on a quiet machine (NetworkMonitorTests time that); here, beside the
        // whole suite and busy loops, the probes' tasks wait for the processor, so the bound is loose.
        try portal.setOutage(true)
        let lost = Date()
        screen = try await tmux.waitFor("○ portal not answering", timeout: 30)
        let noticed = Date().timeIntervalSince(lost)
        #expect(noticed <= 20, "the outage noticed after \(noticed) s")
        screen = try await tmux.waitFor("1 of 6 map areas on this device")
        #expect(screen.contains("Greater Portland") && !screen.contains("Acadia") && !screen.contains("Bangor"))
        #expect(screen.contains("m map") && !screen.contains("d download"), "the keys that still work")
        tmux.send("Enter")
        screen = try await tmux.waitFor("On this device")
        #expect(screen.contains("Size on disk      2.1 MiB"))
        tmux.send("Escape")
        _ = try await tmux.waitFor("○ portal not answering")

        // It comes back: online, and the list reloads.
        try portal.setOutage(false)
        _ = try await tmux.waitFor("● online", timeout: 20)
        screen = try await tmux.waitFor("Acadia")
        #expect(screen.contains("Bangor") && screen.contains("Downloaded · 2.1 MiB"))
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// A portal that accepts connections and closes them: the card says it is not answering (not
    /// "online", no stale list), offers only the keys that work, and when the portal recovers the
    /// browser loads by itself, with no key pressed.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func aPortalThatClosesConnectionsThenRecovers() async throws {
        var faults = SampleFaults()
        faults.hangUp = true
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let tmux = try Tmux(width: 100, height: 30)
        defer { tmux.close() }
        try tmux.start("mapbook --portal \(portal.baseURL.absoluteString) --webmap \(SampleCatalog.webMapID)")
        var screen = try await tmux.waitFor("127.0.0.1 is not answering", timeout: 30)
        #expect(screen.contains("○ portal not answering"))
        #expect(screen.contains("r try now  ? help  q quit") && !screen.contains("d download"))
        #expect(!screen.contains("● online"))
        portal.updateFaults { $0.hangUp = false }
        screen = try await tmux.waitFor("6 map areas", timeout: 40)
        screen = try await tmux.waitFor("● online")
        #expect(screen.contains("Acadia") && screen.contains("d download"))
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// kill -9 during a download; the restart shows the area paused with its share before the portal
    /// answers, resumes it by itself (a range request, not a fresh start) to a package byte for
    /// byte the portal's; and `q` while a download runs asks first.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func aDownloadKilledMidwayResumesAfterARestart() async throws {
        let (portal, tmux, started) = try await Self.downloadingAcadia(bytesPerSecond: 300_000)
        defer { portal.stop(); tmux.close() }
        var screen = started
        let deadline = Date().addingTimeInterval(30)
        while Self.percent(in: screen) < 20, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            screen = tmux.capture()
        }
        Tmux.kill(commandLineContaining: portal.baseURL.absoluteString)
        _ = try await tmux.waitFor("[exit 137]")

        // The restart lists the area from the library before the (slowed) portal answers.
        portal.updateFaults { $0.bytesPerSecond = 300_000; $0.latencyMilliseconds = 1500 }
        tmux.respawn("mapbook --portal \(portal.baseURL.absoluteString)")
        // Read while it shows (the portal's answer moves it on: no waiting for the screen to be idle).
        screen = try await tmux.waitUntil("the paused share", timeout: 30) { $0.contains("Paused ▕") && Self.percent(in: $0) >= 0 }
        #expect(screen.contains("resumes when online"))
        let paused = Self.percent(in: screen)
        #expect(paused >= 15, "the share kept: \(screen)")
        screen = try await tmux.waitFor("Downloading ▕", timeout: 30)
        #expect(Self.percent(in: screen) >= paused, "resumed, not started over")
        _ = try await tmux.waitFor("Acadia downloaded", timeout: 60)
        #expect(portal.requests.contains { $0.headers["range"]?.hasPrefix("bytes=") == true }, "a range request resumed it")

        let area = try #require(SampleCatalog.areas.first { $0.title == "Acadia" })
        let expected = try #require(portal.content.packages[area.packageID]?.data)
        let files = FileManager.default.enumerator(at: tmux.library, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.path.contains("/\(area.id)/packages/") && $0.pathExtension == "vtpk" } ?? []
        #expect(files.count == 1)
        #expect(try files.first.map { try Data(contentsOf: $0) } == expected, "byte for byte the portal's package")

        // q while a download runs asks; n keeps it going; y quits.
        portal.updateFaults { $0.bytesPerSecond = 300_000 }
        tmux.send("j", "j")
        _ = try await tmux.waitFor("3/7")
        tmux.send("d")
        _ = try await tmux.waitFor("Downloading ▕")
        tmux.send("q")
        _ = try await tmux.waitFor("1 download running — quit and resume it next time?")
        tmux.send("n")
        screen = try await tmux.waitForSettled()
        #expect(!screen.contains("quit and resume") && screen.contains("Downloading ▕"))
        tmux.send("q")
        _ = try await tmux.waitFor("quit and resume it next time?")
        tmux.send("y")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// A downloaded area's map, offline: open it, pan, zoom, a bookmark, the layer list, back, quit.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func anAreasMapOfflinePanZoomBookmarksLayers() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer { tmux.close() }
        tmux.send("j")
        _ = try await tmux.waitFor("2/7")
        tmux.send("d")
        _ = try await tmux.waitFor("Acadia downloaded", timeout: 30)
        try portal.setOutage(true)
        _ = try await tmux.waitFor("○ portal not answering", timeout: 10)

        tmux.send("m")
        var screen = try await tmux.waitFor("Acadia › Map")
        screen = try await tmux.waitFor("braille")
        #expect(screen.contains("Acadia · on this device"))
        #expect(screen.contains("Bar Harbor") || screen.contains("Census"), "the package is drawn")
        let home = Self.footer(screen)

        tmux.send("Right", "Right", "l")
        screen = try await tmux.waitForSettled()
        let panned = Self.footer(screen)
        #expect(panned != home, "the centre moved east")
        #expect(Self.zoom(in: panned) == Self.zoom(in: home))

        tmux.send("+")
        let zoom = Self.zoom(in: panned) ?? 0
        screen = try await tmux.waitFor(String(format: "z%.1f", zoom + 1))

        tmux.send("b")
        screen = try await tmux.waitFor("Bookmarks")
        #expect(screen.contains("All of Maine"))
        tmux.send("Enter")
        screen = try await tmux.waitFor("Bookmark: All of Maine")
        #expect(!screen.contains("─ Bookmarks"))

        // The operational layers come from the copy kept with the download, above the package's own.
        tmux.send("L")
        screen = try await tmux.waitFor("[x] places")
        #expect(screen.contains("[x] Places") && screen.contains("[x] Counties") && screen.contains("City (10,000 or more)"))
        tmux.send("Space")
        screen = try await tmux.waitFor("[ ] Places")
        tmux.send("Escape")
        screen = try await tmux.waitForSettled()
        #expect(!screen.contains("[ ] Places"))

        tmux.send("Escape")
        screen = try await tmux.waitFor("map areas on this device")
        #expect(screen.contains("Acadia") && screen.contains("2/2"))
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// `--graphics sixel` in a tmux that does not let pictures through (its default): the map in
    /// characters, and the status bar says how to let them through — not a blank map (tmux drops a
    /// picture sent raw).
    @Test(.enabled(if: tmuxAvailable && SharedData.available, "needs tmux and ../shared/data"), .timeLimit(.minutes(3)))
    func aPictureTmuxWouldDropIsCharactersAndOneSentence() async throws {
        let tmux = try Tmux(width: 160, height: 30)
        defer { tmux.close() }
        try tmux.start("mapbook open '\(SharedData.url("raster/tpkx/Usa.tpkx").path)' --graphics sixel --center=-98,39 --zoom 3")
        let screen = try await tmux.waitFor("allow-passthrough on")
        #expect(screen.contains("tmux does not let pictures through"), "\(screen)")
        #expect(!screen.contains(" pixels"), "\(screen)")
        #expect(screen.contains("braille") || screen.contains("blocks"), "\(screen)")
    }

    /// A mobile map package side-loaded with `mapbook open`: its title, its map drawn from the package
    /// alone, the layer it cannot draw named, its bookmarks, its layers and identify.
    @Test(.enabled(if: tmuxAvailable && TestMobilePackage.available, "needs tmux and ../shared/data"), .timeLimit(.minutes(3)))
    func aMobileMapPackageOpensWithItsBookmarksLayersAndIdentify() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-e2e-mmpk-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("usa.mmpk").path
        try TestMobilePackage.zip(try TestMobilePackage.files(), to: path)
        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        try tmux.start("mapbook open '\(path)'")
        var screen = try await tmux.waitFor("USA mapbook › Map")
        screen = try await tmux.waitFor("Weather is an online layer (WMS)")

        tmux.send("b")
        screen = try await tmux.waitFor("─ Bookmarks")
        #expect(screen.contains("New England") && screen.contains("Texas"))
        tmux.send("Enter")
        screen = try await tmux.waitFor("Bookmark: New England")
        screen = try await tmux.waitForSettled()
        #expect(screen.contains("●"), "the cities drawn")

        tmux.send("L")
        screen = try await tmux.waitFor("[x] Cities")
        #expect(screen.contains("[x] Highways") && screen.contains("[x] States"))
        tmux.send("Escape")
        _ = try await tmux.waitForSettled()

        tmux.send("i")
        screen = try await tmux.waitFor("Identify · ")
        #expect(["│ Highways", "STATE_NAME", "City: "].contains { screen.contains($0) }, "a highway, state or city of the package")
        tmux.send("Escape", "q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// `scripts/install --prefix P` (from the build the tests run): the copy in P/bin finds its
    /// geography in P/share/mapbook wherever it is, runs the demo, searches offline, and its
    /// manual reads with `man -l`; completions for three shells are there.
    @Test(.enabled(if: tmuxAvailable && Self.installable, "needs tmux, man and generate-manual (scripts/setup builds it)"),
          .timeLimit(.minutes(2)))
    func anInstalledCopyRunsTheDemoSearchesOfflineAndHasItsManual() async throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-install-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let install = Self.shell("'\(Self.repository)/scripts/install' --prefix '\(prefix)' --from '\(Self.buildDirectory)'")
        #expect(install.status == 0, "\(install.output)")
        for file in ["bin/mapbook", "share/mapbook/world/gazetteer.mbpl", "share/man/man1/mapbook.1", "share/bash-completion/completions/mapbook",
                     "share/zsh/site-functions/_mapbook", "share/fish/vendor_completions.d/mapbook.fish"] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file)")
        }
        let search = Self.shell("MAPBOOK_DATA_DIR='\(prefix)/data' '\(prefix)/bin/mapbook' search --offline Austin")
        #expect(search.status == 0 && search.output.contains("Austin"), "\(search.output)")
        let manual = Self.shell("MANPAGER=cat MANWIDTH=80 man -l '\(prefix)/share/man/man1/mapbook.1'")
        #expect(manual.status == 0 && manual.output.contains("MAPBOOK(1)") && manual.output.contains("EXIT STATUS"), "\(manual.output.prefix(400))")
        let tmux = try Tmux(width: 100, height: 30)
        defer { tmux.close() }
        try tmux.start("'\(prefix)/bin/mapbook' demo")
        let screen = try await tmux.waitFor("6 map areas", timeout: 30)
        #expect(screen.contains("Explore Maine"))
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// The README's tour of the demo, as written: a command downloads into the demo's library
    /// (`--portal demo`), another lists it, and `mapbook demo --offline` opens it with the sample
    /// portal cut off, the downloaded area listed and the keys that still work shown.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(2)))
    func theDemoLibraryFromTheCommandLineThenOffline() async throws {
        let tmux = try Tmux(width: 120, height: 30)
        defer { tmux.close() }
        try tmux.start("mapbook download Acadia --portal demo", fullScreen: false)
        _ = try await tmux.waitFor("[exit 0]", timeout: 60)
        tmux.respawn("mapbook library --portal demo", fullScreen: false)
        let listed = try await tmux.waitFor("[exit", timeout: 30)
        #expect(listed.contains("1 of 6 map areas downloaded") && listed.contains("[exit 0]"), "\(listed)")
        tmux.respawn("mapbook demo --offline")
        let offline = try await tmux.waitFor("portal not answering", timeout: 30)
        #expect(offline.contains("1 of 6 map areas on this device") && offline.contains("Acadia") && offline.contains("m map"), "\(offline)")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// The plain mode starts on the list, whatever the full screen was left on: a map left open
    /// there is not opened again, unasked, for a screen reader.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(2)))
    func thePlainModeDoesNotReopenTheFullScreensMap() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer { tmux.close() }
        tmux.send("m")
        _ = try await tmux.waitFor("braille")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
        tmux.respawn("sh -c \"printf 'list\\\\nquit\\\\n' | \(Self.browseCommand(portal)) --plain\"", fullScreen: false)
        let screen = try await tmux.waitFor("[exit", timeout: 30)
        #expect(screen.contains("7. Bangor") && !screen.contains("Map of"), "\(screen)")
    }

    /// A terminal sending SGR mouse reports (tmux's description asks only for the old ones): the
    /// wheel zooms the map out, and no part of the report is read as a key (its "M" would open
    /// the Maps card). The terminal's answers to what mapbook asked at the start, coming after it
    /// stopped waiting (a slow link, a loaded machine: kitty under load answered after the map was
    /// up, and its answer's ESC closed the map), are dropped whole: the map stays open, none of
    /// their letters is a command (the `i` of kitty's `Gi=31` would identify, the `b` of a colour's
    /// `rgb` open the bookmarks); the Escape key itself still closes the map.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(2)))
    func reportsAndLateAnswersAreNotReadAsKeys() async throws {
        let tmux = try Tmux(width: 100, height: 30)
        defer { tmux.close() }
        try tmux.start("mapbook demo")
        _ = try await tmux.waitFor("6 map areas", timeout: 30)
        tmux.send("m")
        let before = Self.zoom(in: Self.footer(try await tmux.waitFor("braille")))
        tmux.sendLiteral("\u{1B}[<65;40;12M", keys: 1)
        tmux.sendLiteral("\u{1B}[<65;40;12M", keys: 1)
        #expect(await tmux.eventually { screen in
            Self.zoom(in: Self.footer(screen)).map { zoom in before.map { zoom < $0 - 1.5 } ?? false } ?? false
        }, "two notches down zoom out")
        var screen = tmux.capture()
        #expect(!screen.contains("╭─ Maps") && !screen.contains("[<65"), "\(screen)")
        for answer in ["\u{1B}_Gi=31;OK\u{1B}\\", "\u{1B}[?62;4;22c", "\u{1B}[6;17;8t", "\u{1B}]11;rgb:ffff/ffff/dddd\u{1B}\\",
                       "\u{1B}]11;rgb:0000/0000/0000\u{07}", "\u{1B}[12;1R"] {
            tmux.sendLiteral(answer, keys: answer.unicodeScalars.count)
        }
        screen = try await tmux.waitForSettled()
        #expect(screen.contains("braille") && !screen.contains("Identify") && !screen.contains("Bookmarks") && !screen.contains("6 map areas"),
                "\(screen)")
        tmux.send("Escape")
        _ = try await tmux.waitFor("6 map areas")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    static var installable: Bool {
        FileManager.default.isExecutableFile(atPath: buildDirectory + "/generate-manual") && Tmux.which("man") != nil
    }

    /// A shell command's status and output (standard error with it).
    static func shell(_ command: String) -> (status: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-shell-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        guard let pid = try? CleanSpawn.start("/bin/sh", ["-c", command], output: output) else { return (-1, "") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xFF, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// A terminal that cannot draw the full screen (`TERM=dumb`) gets the plain mode, said once,
    /// instead of a screen of blank rows.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(2)))
    func aDumbTerminalGetsThePlainMode() async throws {
        let tmux = try Tmux(width: 80, height: 24)
        defer { tmux.close() }
        try tmux.start("env TERM=dumb mapbook demo", fullScreen: false)
        let screen = try await tmux.waitFor("7. Bangor", timeout: 30)
        #expect(screen.contains("TERM=dumb cannot draw the full screen: the plain mode runs instead."), "\(screen)")
        tmux.send("quit", "Enter")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// The Offline Mapbook's portal packages: the Maps card's Packages tab finds the portal's
    /// package, Enter downloads it (its progress in the row) and opens it — its bookmarks and
    /// identify from the file —, Esc leaves its map for the browser's Packages tab (not the shell),
    /// and there `x` removes it after asking.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func aPortalPackageDownloadedOpenedAndRemoved() async throws {
        var faults = SampleFaults()
        faults.bytesPerSecond = 600_000
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer { tmux.close() }
        tmux.send("M")
        _ = try await tmux.waitFor("─ Maps")
        tmux.send("Left")
        var screen = try await tmux.waitFor("1 of 1 package")
        #expect(screen.contains("Maine Places") && screen.contains("1.8 MiB") && !screen.contains("On this device"))
        tmux.send("Enter")
        screen = try await tmux.waitFor("Downloading")
        screen = try await tmux.waitFor("Maine Places › Map", timeout: 30)
        tmux.send("b")
        screen = try await tmux.waitFor("─ Bookmarks")
        #expect(screen.contains("All of Maine") && screen.contains("Greater Portland"))
        tmux.send("j", "Enter")
        _ = try await tmux.waitFor("Bookmark: Greater Portland")
        _ = try await tmux.waitForSettled()
        tmux.send("i")
        screen = try await tmux.waitFor("Identify · ")
        #expect(["│ Places", "│ Counties"].contains { screen.contains($0) }, "a place or county of the package")
        tmux.send("Escape")
        _ = try await tmux.waitUntil("the identify card closed") { !$0.contains("Identify · ") && $0.contains("Maine Places › Map") }
        tmux.send("Escape")

        // The browser again, on the Packages tab: the package is on this device; x asks, y removes,
        // the portal's still listed.
        screen = try await tmux.waitFor("On this device", timeout: 30)
        #expect(screen.contains("─ Maps") && !screen.contains("[exit"))
        tmux.send("x")
        screen = try await tmux.waitFor("Remove Maine Places from this device?")
        tmux.send("y")
        // The card comes back without the package. "Removed …" is news that fades after 8 s, which a
        // loaded machine's polling once missed entirely: it is waited for with the removal, and the
        // model's test (PackagesTabTests) holds the sentence itself.
        screen = try await tmux.waitUntil("the package removed") { screen in
            screen.contains("Removed Maine Places from this device.")
                || (screen.contains("1 of 1 package") && !screen.contains("On this device") && !screen.contains("Remove Maine Places from this device?"))
        }
        screen = try await tmux.waitFor("1 of 1 package")
        #expect(!screen.contains("On this device"))
        tmux.send("Escape", "q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// A web map of map services, a feature collection, a CSV layer and a KML layer: online the map
    /// service's picture draws and identifies, every layer is in L (the KML one "not drawn"); with
    /// an area downloaded and the portal gone, the collection's and the CSV's features still show
    /// and the map service is listed as needing the network.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func aWebMapOfServicesCollectionsAndCSVOnlineThenOffline() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        try tmux.start("mapbook --portal \(portal.baseURL.absoluteString) --webmap \(SampleServicesMap.id)")
        _ = try await tmux.waitFor("6 map areas", timeout: 30)
        tmux.send("m")
        var screen = try await tmux.waitFor("Maine services › Map")
        screen = try await tmux.waitForSettled()
        #expect(portal.requests.contains { $0.path.hasSuffix("/MapServer/export") }, "the service drew the view")
        #expect(screen.contains("◆") && screen.contains("■"), "lighthouses and ferry terminals")
        tmux.send("L")
        screen = try await tmux.waitFor("[x] Maine boundaries")
        #expect(screen.contains("[x] Lighthouses") && screen.contains("[x] Ferry terminals") && screen.contains("Counties"))
        #expect(screen.contains("Hiking trails (KML) · not drawn"))
        tmux.send("Escape")
        _ = try await tmux.waitForSettled()
        // What lies at the centre, as the map service's identify says: towns near it, its county.
        tmux.send("i")
        screen = try await tmux.waitFor("Maine boundaries · ")
        #expect(screen.contains("Identify · ") && (screen.contains("County") || screen.contains("Town")))
        tmux.send("Escape", "Escape")
        _ = try await tmux.waitFor("6 map areas")
        tmux.send("Down", "Down", "Down", "Down")
        _ = try await tmux.waitFor("5/7")
        tmux.send("d")
        _ = try await tmux.waitFor("Greater Portland downloaded", timeout: 30)
        try portal.setOutage(true)
        _ = try await tmux.waitFor("○ portal not answering", timeout: 10)
        tmux.send("m")
        screen = try await tmux.waitFor("Greater Portland › Map")
        screen = try await tmux.waitForSettled()
        #expect(screen.contains("◆"), "Portland Head Light, from the copy kept with the area")
        tmux.send("L")
        screen = try await tmux.waitFor("[x] Ferry terminals")
        // The map service, from its picture of the area kept with the download.
        #expect(screen.contains("[x] Lighthouses") && screen.contains("[x] Maine boundaries") && !screen.contains("needs the network"))
        #expect(portal.requests.contains { $0.path.hasSuffix("/MapServer/export") && $0.query["size"]?.contains("2048") == true })
        tmux.send("Escape", "Escape", "q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// A web map in NAD83 / UTM zone 19N: its basemap, a cache in that zone, drawn (resampled into
    /// Web Mercator), its feature layers over it, at the initial view its UTM extent gives; `L` lists them.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func aWebMapInAnotherProjectionIsDrawnOnItsOwnBasemap() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        try tmux.start("mapbook --portal \(portal.baseURL.absoluteString) --webmap \(SampleUTMMap.id)")
        _ = try await tmux.waitFor("Maine survey (UTM)", timeout: 30)
        tmux.send("m")
        _ = try await tmux.waitFor("Maine survey basemap")
        var screen = try await tmux.waitForSettled()
        #expect(!screen.contains("world outline") && !screen.contains("cannot use"), "\(screen)")
        let centre = try #require(Self.centre(in: screen), "\(screen)")
        #expect(abs(centre.latitude - 44.25) < 0.3 && abs(centre.longitude + 69.24) < 0.3, "mid-coast Maine, from the UTM extent: \(centre)")
        #expect(portal.requests.contains { $0.path.contains("/Maine_Survey_UTM/MapServer/tile/") }, "the zone's own tiles asked for")
        #expect(portal.requests.contains { $0.path.hasSuffix("/FeatureServer/0/query") }, "the places asked for the view")
        tmux.send("L")
        screen = try await tmux.waitFor("[x] Places")
        #expect(screen.contains("[x] Counties") && screen.contains("Tiles"), "\(screen)")
        tmux.send("Escape", "Escape", "q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// `R` in the map view, then a pan: the ruler's card gives the great-circle distance between the
    /// centre before and after, to 0.5 % of a haversine reference (and the display's rounding).
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func theRulerMeasuresThePan() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer { tmux.close() }
        tmux.send("Enter")
        _ = try await tmux.waitFor("Explore Maine Basemap")
        var screen = try await tmux.waitForSettled()
        let start = try #require(Self.centre(in: screen), "\(screen)")
        tmux.send("R")
        _ = try await tmux.waitFor("Ruler")
        tmux.send("l", "l", "l", "j", "j")
        screen = try await tmux.waitForSettled()
        let end = try #require(Self.centre(in: screen))
        let shown = try #require(Self.rulerMeters(in: screen), "\(screen)")
        let r = Double.pi / 180
        let h = pow(sin((end.latitude - start.latitude) * r / 2), 2)
            + cos(start.latitude * r) * cos(end.latitude * r) * pow(sin((end.longitude - start.longitude) * r / 2), 2)
        let reference = 2 * 6_371_008.8 * asin(h.squareRoot())
        #expect(reference > 10_000, "the pan covered some distance")
        #expect(abs(shown.meters - reference) <= reference * 0.005 + shown.rounding, "ruler \(shown.meters) m, reference \(reference) m")
        #expect(screen.contains("bearing"))
        tmux.send("Escape")
        screen = try await tmux.waitForSettled()
        #expect(!screen.contains("Ruler"))
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// The centre in the map's footer: `44.3512°N 68.2210°W`.
    static func centre(in screen: String) -> GeoPoint? {
        let footer = screen.split(separator: "\n").last { $0.contains("°") } ?? ""
        guard let range = footer.range(of: #"[0-9.]+°[NS] [0-9.]+°[EW]"#, options: .regularExpression) else { return nil }
        let parts = footer[range].split(separator: " ")
        guard let lat = Double(parts[0].dropLast(2)), let lon = Double(parts[1].dropLast(2)) else { return nil }
        return GeoPoint(longitude: parts[1].hasSuffix("W") ? -lon : lon, latitude: parts[0].hasSuffix("S") ? -lat : lat)
    }

    /// The ruler card's first distance in metres, and how much the display's rounding may hide.
    static func rulerMeters(in screen: String) -> (meters: Double, rounding: Double)? {
        guard let range = screen.range(of: #"[0-9.]+ (km|m|mi|ft), bearing"#, options: .regularExpression) else { return nil }
        let parts = screen[range].split(separator: " ")
        guard let value = Double(parts[0]) else { return nil }
        let unit: Double = ["km": 1000, "m": 1, "mi": 1609.344, "ft": 0.3048][String(parts[1].dropLast())] ?? 1
        let step = parts[0].contains(".") ? 0.05 : 0.5
        return (value * unit, step * unit)
    }

    /// The map footer's position: centre, zoom, scale.
    static func footer(_ screen: String) -> String {
        let last = screen.split(separator: "\n").last { $0.contains("°") } ?? ""
        return String(last[(last.range(of: "°")?.lowerBound ?? last.startIndex)...])
    }

    static func zoom(in footer: String) -> Double? {
        guard let range = footer.range(of: #"z\d+\.\d"#, options: .regularExpression) else { return nil }
        return Double(footer[range].dropFirst())
    }

    /// mapbook on `portal` in a 120×40 tmux, once the list has loaded online.
    /// A web map whose basemap is a raster MapServer (with a vector reference layer): its tiles in
    /// the overview and the map view; `B` switches to the gallery's dark basemap, and a restart
    /// keeps the choice.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func aRasterBasemapThenAnotherFromTheGalleryRememberedAfterARestart() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try Tmux(width: 120, height: 36)
        defer { tmux.close() }
        let command = "mapbook --portal \(portal.baseURL.absoluteString) --webmap 6c2f3b4d5e6f4a7b9c0d1e2f3a4b5c6d"
        try tmux.start(command, colours: true)
        _ = try await tmux.waitFor("0 map areas", timeout: 30)
        // The overview is the raster's picture: half blocks in the service's land and water colours.
        let raster: Set<Int> = [Int(XtermPalette.nearest(r: 160, g: 196, b: 222)), Int(XtermPalette.nearest(r: 236, g: 231, b: 214))]
        #expect(await tmux.eventually { Self.backgrounds(in: $0, columns: 2..<45).isSuperset(of: raster) },
                "the overview shows the MapServer's tiles")
        tmux.send("Enter")
        var screen = try await tmux.waitFor("Maine Topographic · online")
        #expect(await tmux.eventually { Self.backgrounds(in: $0, columns: 0..<120).isSuperset(of: raster) }, "the map view too")

        tmux.send("B")
        screen = try await tmux.waitFor("Explore Maine Dark · vector")
        #expect(screen.contains("● Maine Topographic · this web map's own, raster + reference"))
        tmux.send("Down", "Down", "Enter")
        screen = try await tmux.waitFor("Drawing on Explore Maine Dark.")
        #expect(screen.contains("Explore Maine Dark · online"))
        let dark = Int(XtermPalette.nearest(r: 0x1c, g: 0x28, b: 0x33))
        #expect(await tmux.eventually { Self.backgrounds(in: $0, columns: 0..<120).contains(dark) }, "the dark style's water")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")

        // The map opens again where it was left, on the basemap chosen; the list has it too.
        tmux.respawn(command, colours: true)
        screen = try await tmux.waitFor("Explore Maine Dark · online", timeout: 30)
        tmux.send("Escape")
        _ = try await tmux.waitFor("0 map areas")
        // The list's overview keeps the web map's own basemap: the choice is the map view's.
        #expect(await tmux.eventually { let backgrounds = Self.backgrounds(in: $0, columns: 2..<45); return backgrounds.isSuperset(of: raster) && !backgrounds.contains(dark) },
                "the overview is still the raster's")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// `s`, a few letters, the geocoder's suggestions under them; Enter: the map on the place,
    /// pinned, and the status bar names the area that holds it; `w` says what is there.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func searchForAPlaceAndGoThere() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer { tmux.close() }
        tmux.send("s")
        _ = try await tmux.waitFor("Search for a place")
        tmux.send("b", "a", "r", " ", "h")
        var screen = try await tmux.waitFor("Bar Harbor, ME, USA")
        #expect(screen.contains("> bar h"))
        #expect(portal.requests.contains { $0.path.hasSuffix("/GeocodeServer/suggest") && $0.query["text"] == "bar h" })
        #expect(!portal.requests.contains { $0.path.hasSuffix("/GeocodeServer/suggest") && $0.query["text"] == "b" }, "one letter asks nothing")
        tmux.send("Enter")
        screen = try await tmux.waitFor("◆ Bar Harbor, ME, USA")
        #expect(screen.contains("Bar Harbor, ME, USA › Map") && screen.contains("Bar Harbor, ME, USA — in Acadia"))
        // Named once on the map: the basemap's own "Bar Harbor" gives way to the search's name.
        #expect(screen.components(separatedBy: "Bar Harbor").count - 1 == 3 && !screen.contains("Bar Harbor ◆"), "\(screen)")
        // w: what is at the centre, the place found.
        tmux.send("w")
        screen = try await tmux.waitFor("What's here")
        screen = try await tmux.waitFor("In Acadia")
        #expect(screen.contains("│ Bar Harbor, ME, USA"))
        // Y: the centre's position to the clipboard (OSC 52, kept by tmux as a paste buffer).
        tmux.acceptClipboard()
        tmux.send("Y")
        screen = try await tmux.waitFor("to the clipboard")
        let copied = try #require(screen.firstMatch(of: /Copied (-?[0-9.]+,-?[0-9.]+) \(LON,LAT\)/)?.output.1)
        #expect(tmux.pasteBuffer() == String(copied), "\(screen)")
        #expect(abs((Double(copied.split(separator: ",")[0]) ?? 0) + 68.2) < 0.1, "Bar Harbor's longitude, first")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// Search Bangor, `t`, directions from Portland: the sample route service solves over the
    /// interstates; the line is drawn with its ends marked, the panel lists the steps, and moving
    /// through them moves the map to each (the colours: `DirectionsPanelTests`); Tab asks again by
    /// another travel mode, and `[` goes back to the first.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func directionsFromPortlandToBangorStepByStep() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer { tmux.close() }
        try await Self.openMap(at: "Bangor, ME, USA", typing: "Bangor", in: tmux)
        try await tmux.waitUntil("Bangor marked") { $0.contains("◆") }
        tmux.send("t")
        _ = try await tmux.waitFor("Directions to Bangor, ME, USA: from where?")
        tmux.send("P", "o", "r", "t", "l")
        _ = try await tmux.waitFor("Portland, ME, USA")
        tmux.send("Enter")
        var screen = try await tmux.waitFor("Whole route", timeout: 20)
        #expect(screen.contains("Portland, ME, USA → Bangor, ME, USA"))
        #expect(screen.contains("Take I-295 N") && screen.contains("I-95 N") && screen.contains("◆ Finish at Bangor"))
        // The map beside the panel: both ends marked (a name goes on whichever side it fits).
        let map = screen.split(separator: "\n").dropFirst().map { String($0.prefix(120 - ScreenLayout.directionsPanelWidth(mapWidth: 120) - 1)) }
            .joined(separator: "\n")
        #expect(map.contains("◉") && map.contains("◆") && map.contains("Portland, ME, USA") && map.contains("Bangor, ME, USA"), "\(map)")
        #expect(portal.requests.contains { $0.method == "POST" && $0.path.hasSuffix("/NAServer/Route_World/solve") })
        let whole = Self.footer(screen)
        // ↓↓↓: the third step (I-295) fills the map beside the panel, closer than the whole route.
        tmux.send("Down", "Down", "Down")
        try await tmux.waitUntil("the map to move to the step") { Self.footer($0) != whole && !Self.footer($0).hasSuffix("…") }
        screen = try await tmux.waitForSettled()
        let stepZoom = try #require(Self.zoom(in: Self.footer(screen))), wholeZoom = try #require(Self.zoom(in: whole))
        #expect(stepZoom > wholeZoom + 1, "\(whole) → \(Self.footer(screen))")
        #expect(screen.contains("Take I-295 N toward Brunswick          "), "the step's whole text at the panel's foot")
        tmux.send("Enter")
        try await tmux.waitUntil("the whole route again") { Self.footer($0) == whole }
        // Tab: the portal's travel modes, and the directions again by the next one.
        tmux.send("Tab")
        screen = try await tmux.waitFor("· Driving Distance", timeout: 20)
        #expect(screen.contains("Directions · 2 of 2"))
        #expect(portal.requests.contains { $0.path.hasSuffix("/GetTravelModes/execute") })
        tmux.send("[")
        _ = try await tmux.waitFor("Directions · 1 of 2")
        tmux.send("[")
        _ = try await tmux.waitFor("These are the first directions asked for.")
        tmux.send("Escape")
        screen = try await tmux.waitUntil("the panel to close") { !$0.contains("Whole route") }
        #expect(screen.contains("Bangor, ME, USA › Map"), "the panel closes, the map stays")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// An area of your own: in the Explore Maine map, `N` over Camden, named "Camden harbor" at the
    /// Street level; the estimate, then the row while the servers prepare it and while it downloads;
    /// then, with the portal gone, it opens from the files on this device with its features.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func camdenHarborMadeAtStreetLevelOpensOffline() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer { tmux.close() }
        try await Self.openMap(at: "Camden, ME, USA", typing: "Camden", in: tmux)
        tmux.send("N")
        _ = try await tmux.waitFor("New map area")
        for _ in 0..<6 { tmux.send("BSpace") }
        tmux.send("C", "a", "m", "d", "e", "n", "Space", "h", "a", "r", "b", "o", "r", "Tab")
        var screen = try await tmux.waitFor("In all about", timeout: 20)
        for _ in 0..<8 where !screen.contains("Street · level 16") {
            tmux.send(Self.level(in: screen) > 16 ? "Left" : "Right")
            screen = try await tmux.waitFor("In all about", timeout: 20)
        }
        // A machine that paused may have kept a service from answering: a service not asked is
        // asked again with the next estimate (→ ←).
        if screen.contains("could not be asked") {
            tmux.send("Right", "Left")
            screen = try await tmux.waitUntil("the estimate again", timeout: 30) {
                $0.contains("Street · level 16") && $0.contains("In all about") && !$0.contains("could not be asked")
            }
        }
        // Each layer's estimate at Street (an answer for the level before may still be on screen a moment).
        screen = try await tmux.waitUntil("each layer's estimate at Street", timeout: 30) {
            $0.contains("Street · level 16") && $0.contains("Explore Maine Basemap: ") && $0.contains(" tiles, about ")
                && $0.contains("Counties, Places: ")
        }
        #expect(screen.contains("Name      Camden harbor"))
        // Slow enough to watch: each request waits, and the package trickles.
        try portal.updateFaults { try $0.apply("latency=250,bandwidth=400k") }
        tmux.send("Enter")
        _ = try await tmux.waitFor("Making Camden harbor")
        tmux.send("Escape")
        _ = try await tmux.waitFor("7 map areas", timeout: 20)
        tmux.send("G")
        screen = try await tmux.waitUntil("the servers preparing it or its download", timeout: 30) {
            $0.contains("Preparing on the server") || $0.contains("Downloading")
        }
        _ = try await tmux.waitFor("Downloading", timeout: 30)
        screen = try await tmux.waitFor("Downloaded · yours", timeout: 60)
        #expect(screen.contains("Made on this device: Street (level 16)."))
        #expect(portal.requests.contains { $0.path.hasSuffix("/VectorTileServer/exportTiles") && $0.query["levels"] == "0-16" })
        #expect(portal.requests.contains { $0.method == "POST" && $0.path.hasSuffix("/FeatureServer/createReplica") })
        // The portal goes; the area opens from its own files, its features identifiable.
        try portal.updateFaults { try $0.apply("reset") }
        portal.stop()
        tmux.send("m")
        screen = try await tmux.waitFor("Camden harbor · on this device", timeout: 20)
        tmux.send("i")
        screen = try await tmux.waitFor("Identify", timeout: 20)
        #expect(screen.contains("Knox") || screen.contains("Camden"), "\(screen)")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// The level a new-area card shows ("· level 16 ·"), or -1.
    static func level(in screen: String) -> Int {
        guard let range = screen.range(of: #"level \d+"#, options: .regularExpression) else { return -1 }
        return Int(screen[range].dropFirst(6)) ?? -1
    }

    /// With the portal gone, the search answers from the names on this device, says so, and the
    /// place still opens, pinned.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func searchWithoutThePortal() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer { tmux.close() }
        try portal.setOutage(true)
        _ = try await tmux.waitFor("○ portal not answering", timeout: 15)
        tmux.send("s")
        _ = try await tmux.waitFor("Search for a place")
        tmux.send("b", "a", "r", " ", "h")
        let screen = try await tmux.waitFor("Offline: names on this device.")
        #expect(screen.contains("Bar Harbor"))
        #expect(!portal.requests.contains { $0.path.contains("GeocodeServer") })
        tmux.send("Enter")
        _ = try await tmux.waitFor("◆ Bar Harbor")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// On a place found by search: `i` shows the Places popup (Tab the next hit), `L` the legend,
    /// `p` drops a pin that `P` lists; after a restart the pin is still there.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func identifyTheLegendAndAPinThatOutlivesARestart() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try await Self.browse(portal)
        defer {
            tmux.close()
            try? FileManager.default.removeItem(at: tmux.library.appendingPathComponent("pins.json"))
        }
        tmux.send("s")
        _ = try await tmux.waitFor("Search for a place")
        tmux.send("p", "o", "r", "t", "l", "a", "n", "d")
        _ = try await tmux.waitFor("Portland, ME, USA")
        tmux.send("Enter")
        _ = try await tmux.waitFor("◆ Portland, ME, USA")
        _ = try await tmux.waitForSettled()

        tmux.send("i")
        var screen = try await tmux.waitFor("Population")
        #expect(screen.contains("Identify · 1 of") && screen.contains("│ Portland") && screen.contains("66,881"))
        #expect(screen.contains("Portland is a City in Cumberland County, Maine."))
        tmux.send("Tab")
        screen = try await tmux.waitFor("Identify · 2 of")
        tmux.send("Escape")
        screen = try await tmux.waitForSettled()
        #expect(!screen.contains("Identify"))

        tmux.send("L")
        screen = try await tmux.waitFor("City (10,000 or more)")
        #expect(screen.contains("[x] Places") && screen.contains("6,000 km² or more"))
        tmux.send("Escape")

        tmux.send("p")
        _ = try await tmux.waitFor("New pin")
        for character in "Lunch spot" { tmux.send(character == " " ? "Space" : String(character)) }
        tmux.send("Enter")
        screen = try await tmux.waitFor("Pin kept: Lunch spot")
        #expect(screen.contains("⚑ Lunch spot"))
        tmux.send("P")
        screen = try await tmux.waitFor("Pins · 1")
        #expect(screen.contains("Lunch spot"))
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")

        // Opened again where it was left: the web map's map at Portland, the pin on it.
        tmux.respawn("mapbook --portal \(portal.baseURL.absoluteString)")
        _ = try await tmux.waitFor("Explore Maine › Map", timeout: 30)
        _ = try await tmux.waitFor("⚑ Lunch spot", timeout: 30)
        tmux.send("P")
        screen = try await tmux.waitFor("Pins · 1")
        #expect(screen.contains("Lunch spot"))
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// A private web map: the portal wants a sign-in, `S` signs in with the demo user's password
    /// (a wrong one first), an area downloads; signed out and with the portal gone, the area still
    /// opens from this device.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func signInFromTheBrowserDownloadSignOutAndTheAreaStillOpensOffline() async throws {
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        let browse = "mapbook --portal \(portal.baseURL.absoluteString) --webmap \(SampleCatalog.protectedID)"
        try tmux.start(browse)
        var screen = try await tmux.waitFor("Signing in is needed", timeout: 30)
        #expect(screen.contains("Press S to sign in"))
        tmux.send("S")
        _ = try await tmux.waitFor("Sign in to 127.0.0.1")
        for character in "demo" { tmux.send(String(character)) }
        tmux.send("Tab")
        for character in "guess" { tmux.send(String(character)) }
        tmux.send("Enter")
        screen = try await tmux.waitFor("did not accept that username and password")
        #expect(screen.contains("Password  ▏") && !screen.contains("guess"), "the password is cleared, and never shown")
        for character in "mapbook-demo" { tmux.send(String(character)) }
        tmux.send("Enter")
        screen = try await tmux.waitFor("6 map areas", timeout: 30)
        #expect(screen.contains("Explore Maine (staff)"))
        // Maps: your content, signed in; Enter opens another web map, and back again.
        tmux.send("M")
        _ = try await tmux.waitFor("My content")
        tmux.send("Right")
        screen = try await tmux.waitFor("Field work  mapbook_sample")
        tmux.send("Down", "Enter")
        screen = try await tmux.waitFor("mapbook › Explore Maine ", timeout: 30)
        _ = try await tmux.waitFor("6 map areas", timeout: 30)
        tmux.send("M", "Right")
        _ = try await tmux.waitFor("Field work  mapbook_sample")
        tmux.send("Enter")
        _ = try await tmux.waitFor("mapbook › Explore Maine (staff)", timeout: 30)
        _ = try await tmux.waitFor("6 map areas", timeout: 30)
        tmux.send("j")
        _ = try await tmux.waitFor("2/7")
        tmux.send("d")
        _ = try await tmux.waitFor("Acadia downloaded", timeout: 30)
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")

        tmux.respawn("mapbook auth logout --portal \(portal.baseURL.absoluteString)", fullScreen: false)
        _ = try await tmux.waitFor("Signed out of 127.0.0.1.")
        try portal.setOutage(true)
        tmux.respawn(browse)
        screen = try await tmux.waitFor("Acadia", timeout: 30)
        tmux.send("j", "m")
        screen = try await tmux.waitFor("Acadia · on this device")
        _ = try await tmux.waitFor("braille")
        // Offline, the Maps card still lists the web maps opened here, with the areas they keep.
        tmux.send("Escape")
        _ = try await tmux.waitFor("map areas on this device")
        tmux.send("M")
        screen = try await tmux.waitFor("1 area here")
        #expect(screen.contains("Explore Maine (staff)") && screen.contains("Explore Maine "))
        tmux.send("Escape", "q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// In the demo, `S` on the Maps card's "sign in to see your content" opens the form, which says
    /// the demo keeps no sign-in; signed in, the header names the user, the status bar says so and
    /// the card is back on My content, listing it.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(2)))
    func signInFromTheMapsCardInTheDemo() async throws {
        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        try tmux.start("mapbook demo")
        _ = try await tmux.waitFor("6 map areas", timeout: 30)
        tmux.send("M", "Right")
        _ = try await tmux.waitFor("Sign in to see your content")
        tmux.send("S")
        var screen = try await tmux.waitFor("Sign in to 127.0.0.1")
        #expect(screen.contains("For this run only: the demo keeps no sign-in."), "\(screen)")
        for character in "demo" { tmux.send(String(character)) }
        tmux.send("Tab")
        for character in "mapbook-demo" { tmux.send(String(character)) }
        tmux.send("Enter")
        screen = try await tmux.waitFor("Field work  mapbook_sample", timeout: 30)
        #expect(screen.contains("demo · 127.0.0.1") && screen.contains("Signed in to 127.0.0.1 as demo."), "\(screen)")
        tmux.send("Escape", "q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// The first start, with no web map named or opened: the Maps card over the default one, its
    /// search typed at once; a web map found opens (the browser starts again on it), Recent brings
    /// the first back; an area's map zoomed and drawn in blocks is where the next start opens.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func theFirstStartFindsAWebMapAndTheNextOpensWhereItWasLeft() async throws {
        // As ArcGIS Enterprise: Explore Maine's id belongs to ArcGIS Online, not to this portal.
        var faults = SampleFaults()
        faults.enterprise = true
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let tmux = try Tmux(width: 120, height: 40)
        defer { tmux.close() }
        let browse = "mapbook --portal \(portal.baseURL.absoluteString)"
        try tmux.start(browse)
        _ = try await tmux.waitFor("Type words, then Enter.", timeout: 30)
        // Nothing named on an ArcGIS Enterprise portal: nothing loads behind the card.
        tmux.send("Escape", "Escape")
        var screen = try await tmux.waitFor("No web map is named for this portal")
        #expect(!screen.contains("does not exist") && !screen.contains("6 map areas") && screen.contains("mapbook › No web map"))
        tmux.send("M", "/")
        _ = try await tmux.waitFor("Type words, then Enter.")
        for character in "topographic" { tmux.send(String(character)) }
        tmux.send("Enter")
        screen = try await tmux.waitFor("1 of 1 web map")
        #expect(screen.contains("Search: topographic") && screen.contains("Maine Topographic"))
        tmux.send("Enter")
        _ = try await tmux.waitFor("This web map has no map areas.", timeout: 30)
        tmux.send("M")
        screen = try await tmux.waitFor("1 of 1 web map")
        #expect(screen.contains("Maine Topographic"))
        for character in "/explore" { tmux.send(String(character)) }
        tmux.send("Enter")
        screen = try await tmux.waitFor("Search: explore")
        tmux.send("Enter")
        _ = try await tmux.waitFor("6 map areas", timeout: 30)
        tmux.send("j", "m")
        _ = try await tmux.waitFor("Acadia › Map")
        tmux.send("+", "c")
        screen = try await tmux.waitFor("Drawing in blocks")
        let zoom = try #require(screen.split(separator: " ").first { $0.hasPrefix("z") && Double($0.dropFirst()) != nil })
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")

        tmux.respawn(browse)
        screen = try await tmux.waitFor("Acadia › Map", timeout: 30)
        screen = try await tmux.waitFor(" \(zoom) ")
        #expect(screen.contains("blocks") && !screen.contains("Type words"))
        tmux.send("Escape")
        screen = try await tmux.waitFor("6 map areas")
        #expect(screen.contains("2/7"), "the area's row selected")
        tmux.send("q")
        _ = try await tmux.waitFor("[exit 0]")
    }

    /// The 256-colour backgrounds (`48;5;N`) on the screen's map rows, within `columns`.
    static func backgrounds(in coloured: String, columns: Range<Int>) -> Set<Int> {
        var found = Set<Int>()
        for line in coloured.split(separator: "\n").dropFirst(2).dropLast(2) {
            var column = 0
            var rest = Substring(line)
            var background: Int?
            while let first = rest.first {
                if first == "\u{1B}", let end = rest.firstIndex(of: "m") {
                    let codes = rest[rest.index(after: rest.startIndex)..<end].dropFirst().split(separator: ";").compactMap { Int($0) }
                    if codes.isEmpty || codes == [0] { background = nil }
                    if let at = codes.firstIndex(of: 48), codes.count > at + 2, codes[at + 1] == 5 { background = codes[at + 2] }
                    if codes.contains(49) { background = nil }
                    rest = rest[rest.index(after: end)...]
                    continue
                }
                if columns.contains(column), let background { found.insert(background) }
                column += 1
                rest = rest.dropFirst()
            }
        }
        return found
    }

    /// SIGTERM, or Ctrl-C typed, while a download runs: the browser ends with 128 + the signal
    /// (the download paused, to resume next time), never 0 with the area partial.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)),
          arguments: ["SIGTERM", "C-c"])
    func aSignalMidDownloadEndsWithItsStatus(how: String) async throws {
        let (portal, tmux, _) = try await Self.downloadingAcadia(bytesPerSecond: 100_000)
        defer { portal.stop(); tmux.close() }
        if how == "SIGTERM" {
            Tmux.kill(commandLineContaining: portal.baseURL.absoluteString, signal: SIGTERM)
            _ = try await tmux.waitFor("[exit 143]")
        } else {
            tmux.send("C-c")
            _ = try await tmux.waitFor("[exit 130]")
        }
    }

    /// `mapbook download --all` on a terminal: the two areas downloading at once have a line each,
    /// rewritten in place, never two bars on one line cut at the edge.
    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func concurrentCommandLineDownloadsHaveALineEach() async throws {
        var faults = SampleFaults()
        faults.bytesPerSecond = 60_000
        let portal = try SampleFixture.start(faults: faults)
        let tmux = try Tmux(width: 100, height: 20)
        defer { portal.stop(); tmux.close() }
        try tmux.start("mapbook download --all --portal \(portal.baseURL.absoluteString)", fullScreen: false)
        let screen = try await tmux.waitUntil("two bars") { screen in
            screen.split(separator: "\n").filter { $0.contains("▕") && $0.contains("%") }.count == 2
        }
        let bars = screen.split(separator: "\n").filter { $0.contains("▕") }
        #expect(bars.allSatisfy { $0.components(separatedBy: "▕").count == 2 && DisplayWidth.of(String($0)) < 100 }, "\(screen)")
        // Rewritten in place: a second later there are still two, not a scroll of them.
        try await Task.sleep(for: .seconds(1))
        #expect(tmux.capture().split(separator: "\n").filter { $0.contains("▕") }.count == 2, "\(tmux.capture())")
        tmux.send("C-c")
        _ = try await tmux.waitFor("[exit 130]")
    }

    /// A portal slowed to `bytesPerSecond`, the browser on it, and Acadia (the second row) being
    /// downloaded: the screen once its bar shows.
    static func downloadingAcadia(bytesPerSecond: Int) async throws -> (SamplePortal, Tmux, String) {
        var faults = SampleFaults()
        faults.bytesPerSecond = bytesPerSecond
        let portal = try SampleFixture.start(faults: faults)
        do {
            let tmux = try await Self.browse(portal)
            tmux.send("j")
            _ = try await tmux.waitFor("2/7")
            tmux.send("d")
            return (portal, tmux, try await tmux.waitFor("Downloading ▕"))
        } catch {
            portal.stop()
            throw error
        }
    }

    static func browse(_ portal: SamplePortal) async throws -> Tmux {
        let tmux = try Tmux(width: 120, height: 40)
        do {
            try tmux.start(browseCommand(portal))
            _ = try await tmux.waitFor("6 map areas", timeout: 30)
            _ = try await tmux.waitFor("● online")
        } catch {
            tmux.close()
            throw error
        }
        return tmux
    }

    /// The browser on the sample web map of `portal`.
    static func browseCommand(_ portal: SamplePortal) -> String {
        "mapbook --portal \(portal.baseURL.absoluteString) --webmap \(SampleCatalog.webMapID)"
    }

    /// `s`, `typing` a letter at a time, Enter on `place` when it is suggested: the map opens there.
    static func openMap(at place: String, typing: String, in tmux: Tmux) async throws {
        tmux.send("s")
        _ = try await tmux.waitFor("Search for a place")
        for letter in typing { tmux.send(String(letter)) }
        _ = try await tmux.waitFor(place)
        tmux.send("Enter")
        try await tmux.waitUntil("the map at \(place)") { $0.contains("\(place) › Map") }
    }

    /// The first "NN%" on the screen.
    static func percent(in screen: String) -> Int {
        guard let range = screen.range(of: #"\d+%"#, options: .regularExpression) else { return -1 }
        return Int(screen[range].dropLast()) ?? -1
    }

    @Test(.enabled(if: tmuxAvailable, "needs tmux (scripts/setup installs it)"), .timeLimit(.minutes(3)))
    func demoBrowseFilterDetailsHelpResizeQuit() async throws {
        let tmux = try Tmux(width: 100, height: 37)
        defer { tmux.close() }
        try tmux.start("mapbook demo")

        // The first full screen: six areas listed.
        var screen = try await tmux.waitFor("6 map areas", timeout: 90)
        _ = try await tmux.waitFor("● online")
        screen = try await tmux.waitForSettled()
        for title in ["Explore Maine", "Acadia", "Boston", "Baxter State Park", "Greater Portland", "Caribou", "Bangor"] {
            #expect(screen.contains(title), "\(title) is listed")
        }
        #expect(screen.contains("● online") && screen.contains("1/7"))

        // Move four rows down: Greater Portland, named over the map.
        tmux.send("j", "j", "Down", "j")
        screen = try await tmux.waitFor("5/7")
        #expect(screen.contains("◆ Greater Portland"))

        // Filter as you type.
        tmux.send("/", "b", "a", "n", "g")
        screen = try await tmux.waitFor("1 of 7")
        #expect(screen.contains("/ bang") && screen.contains("Bangor") && !screen.contains("Acadia"))
        tmux.send("Escape")
        screen = try await tmux.waitFor("6 map areas")
        #expect(screen.contains("Acadia") && screen.contains("1/7"))

        // Details of Greater Portland, and back.
        tmux.send("j", "j", "j", "j", "Enter")
        screen = try await tmux.waitFor("5dbbd50464b546a1ae4e39236f5fafa0")
        #expect(screen.contains("Details") && screen.contains("Packages") && screen.contains("Bookmarks"))
        tmux.send("Escape")
        screen = try await tmux.waitFor("6 map areas")

        // Help, generated from the key map.
        tmux.send("?")
        screen = try await tmux.waitFor("Show or hide this help")
        #expect(screen.contains("Keys") && screen.contains("Filter the list as you type"))
        tmux.send("Escape")
        screen = try await tmux.waitFor("6 map areas")
        #expect(!screen.contains("Show or hide this help"))

        // Narrow: the panes stack. Tiny: the too-small card. Back: the split again.
        tmux.resize(width: 60, height: 30)
        screen = try await tmux.waitFor(String(repeating: "─", count: 60))
        #expect(screen.contains("6 map areas"))
        tmux.resize(width: 30, height: 8)
        screen = try await tmux.waitFor("Terminal too small")
        tmux.resize(width: 100, height: 37)
        screen = try await tmux.waitFor("6 map areas")
        #expect(screen.contains("│"))

        // Quit: the terminal is restored and the exit status is 0.
        tmux.send("q")
        screen = try await tmux.waitFor("[exit 0]")
    }
}

/// A private tmux server, driven by short `tmux` commands started by `CleanSpawn` (with a clean
/// signal mask, since the test runner blocks signals a terminal app needs, and with no inherited
/// descriptors, which would keep the runner's pipes open).
extension Tag {
    /// Runs the built program in tmux: `swift test --filter EndToEndTests` (or `--skip EndToEndTests`) runs them on their own.
    @Tag static var endToEnd: Self
}

final class Tmux {
    struct Timeout: Error, CustomStringConvertible {
        let waitingFor: String
        let screen: String
        var description: String { "timed out waiting for \(waitingFor); the screen was:\n\(screen)" }
    }

    struct MissingExecutable: Error, CustomStringConvertible {
        let directory: String
        var description: String { "no mapbook executable beside the tests in \(directory)" }
    }

    private let session = "e2e"
    private let width: Int, height: Int
    /// The pane runs the full-screen browser, which says when its screen is idle and how many keys
    /// it has read (`MAPBOOK_READY_SIGNAL`, in the pane's title); a command-line command does not.
    private var fullScreen = true
    /// Keys sent to the program now running, and the serial of its last ready signal before the
    /// latest of them: the screen answers them once a newer signal counts them all.
    private var keysSent = 0
    private var signalsBefore = 0
    private let scratch: URL
    private let binDirectory: URL

    init(width: Int, height: Int) throws {
        self.width = width; self.height = height
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-e2e-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // The test bundle sits beside the built executables.
        binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        guard FileManager.default.isExecutableFile(atPath: binDirectory.appendingPathComponent("mapbook").path) else {
            throw MissingExecutable(directory: binDirectory.path)
        }
    }

    /// The library every command started here shares.
    var library: URL { scratch.appendingPathComponent("library") }

    /// Starts `command` in a new pane; in colour only when asked (the test runner sets `NO_COLOR`).
    /// `fullScreen: false` for a command that does not run the browser (no ready signal comes).
    func start(_ command: String, colours: Bool = false, fullScreen: Bool = true) throws {
        _ = run(["-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)", shellLine(command, colours: colours)])
        programStarted(fullScreen: fullScreen)
    }

    /// Runs `command` in the pane instead of what runs there (killed if still running).
    func respawn(_ command: String, colours: Bool = false, fullScreen: Bool = true) {
        _ = run(["respawn-pane", "-k", "-t", session, shellLine(command, colours: colours)])
        programStarted(fullScreen: fullScreen)
    }

    /// A new program counts its keys and signals from nought (the last one's title is replaced
    /// before it starts: `shellLine`).
    private func programStarted(fullScreen: Bool) {
        self.fullScreen = fullScreen
        keysSent = 0
        signalsBefore = 0
    }

    /// The browser's last ready signal: keys it had read, and the signal's serial.
    private func readySignal() -> (keys: Int, serial: Int)? {
        let words = run(["display-message", "-p", "-t", session, "#{pane_title}"]).output.split(whereSeparator: \.isWhitespace)
        guard words.count == 4, words[0] == "mapbook", words[1] == "ready", let keys = Int(words[2]), let serial = Int(words[3]) else { return nil }
        return (keys, serial)
    }

    /// What the browser has to answer before its screen is read: `keys` more keys, or (none)
    /// anything (a resize).
    private func expectAnswer(toKeys keys: Int) {
        signalsBefore = readySignal()?.serial ?? 0
        keysSent += keys
    }

    /// tmux's names for single keys (anything else sent is typed, a key a character).
    private static let keyNames: Set<String> = ["Enter", "Escape", "Tab", "BTab", "Space", "BSpace", "Up", "Down", "Left", "Right",
                                                "Home", "End", "PageUp", "PageDown", "NPage", "PPage", "DC", "IC", "C-c"]

    private func shellLine(_ command: String, colours: Bool) -> String {
        let cache = scratch.appendingPathComponent("cache").path
        return "printf '\\033]2;starting\\007'; env \(colours ? "-u NO_COLOR " : "")LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=tmux-256color XDG_CACHE_HOME='\(cache)' MAPBOOK_DATA_DIR='\(library.path)' "
            + "XDG_CONFIG_HOME='\(scratch.appendingPathComponent("config").path)' XDG_STATE_HOME='\(scratch.appendingPathComponent("state").path)' MAPBOOK_KEYRING=0 MAPBOOK_READY_SIGNAL=1 PATH='\(binDirectory.path)':\"$PATH\" "
            + "\(command); echo \"[exit $?]\"; sleep 600"
    }

    /// Sends SIGKILL to every process whose command line contains `marker`: a crash, as the
    /// program sees none of it.
    static func kill(commandLineContaining marker: String, signal: Int32 = SIGKILL) {
        let own = getpid()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), pid != own,
                  let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let commandLine = String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            if commandLine.hasPrefix("mapbook") || commandLine.contains("/mapbook "), commandLine.contains(marker) {
                Glibc.kill(pid, signal)
            }
        }
    }

    /// Types `text` into the pane as it is, escape sequences and all (what a terminal would send),
    /// which the program reads as `keys` keys (a mouse report is one).
    func sendLiteral(_ text: String, keys: Int) {
        expectAnswer(toKeys: keys)
        _ = run(["send-keys", "-l", "-t", session, text])
    }

    func send(_ keys: String...) { send(keys) }

    func send(_ keys: [String]) {
        expectAnswer(toKeys: keys.reduce(0) { $0 + (Self.keyNames.contains($1) ? 1 : $1.count) })
        for key in keys { _ = run(["send-keys", "-t", session, key]) }
    }

    func resize(width: Int, height: Int) {
        expectAnswer(toKeys: 0)
        _ = run(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    func capture() -> String { run(["capture-pane", "-p", "-t", session]).output }

    /// Lets the program set tmux's paste buffer with OSC 52 (tmux's default passes it on only).
    func acceptClipboard() { _ = run(["set-option", "-s", "set-clipboard", "on"]) }

    /// tmux's newest paste buffer.
    func pasteBuffer() -> String { run(["show-buffer"]).output }

    /// The screen with its colours as escape sequences.
    func captureColours() -> String { run(["capture-pane", "-e", "-p", "-t", session]).output }

    /// Whether the coloured screen comes to pass `check` within `timeout`.
    func eventually(timeout: TimeInterval = 15, _ check: (String) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if check(captureColours()) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Polls the screen until it contains `text`, then until it stops changing.
    @discardableResult
    func waitFor(_ text: String, timeout: TimeInterval = 15) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        try await waitUntil("“\(text)”", timeout: timeout) { $0.contains(text) }
        return try await waitForSettled(deadline: deadline)
    }

    /// Polls the screen until `matches` holds, without waiting for it to settle (for screens that
    /// keep changing, such as a progress bar).
    @discardableResult
    func waitUntil(_ what: String, timeout: TimeInterval = 15, _ matches: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = capture()
        while !matches(screen) {
            guard Date() < deadline else { throw Timeout(waitingFor: what, screen: screen) }
            try await Task.sleep(for: .milliseconds(50))
            screen = capture()
        }
        return screen
    }

    /// Waits until the screen has answered everything sent: the browser's ready signal newer than
    /// the last keys sent and counting them all (tmux takes the title after the frame before it,
    /// so the capture is whole), or the command's end (`[exit N]`). A command-line command that
    /// is still running gives no signal: its output is taken once two captures 150 ms apart agree.
    @discardableResult
    func waitForSettled(deadline: Date = Date().addingTimeInterval(15)) async throws -> String {
        var previous: String?
        while true {
            let signal = fullScreen ? readySignal() : nil
            let screen = capture()
            if screen.contains("[exit ") { return screen }
            if let signal, signal.serial > signalsBefore, signal.keys >= keysSent { return screen }
            if !fullScreen, screen == previous { return screen }
            guard Date() < deadline else {
                throw Timeout(waitingFor: "the screen to settle (ready signal \(signal.map { "\($0)" } ?? "none"), \(keysSent) keys sent)", screen: screen)
            }
            previous = screen
            try await Task.sleep(for: .milliseconds(fullScreen ? 30 : 150))
        }
    }

    func close() {
        _ = run(["kill-server"])
        try? FileManager.default.removeItem(at: scratch)
    }

    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tmux -S SOCKET ARGS` (a socket in the scratch folder), returning its exit status and output.
    private func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let outputPath = scratch.appendingPathComponent("tmux-output").path
        guard let pid = try? CleanSpawn.start("tmux", ["-S", scratch.appendingPathComponent("tmux.socket").path] + arguments, output: outputPath)
        else { return (-1, "") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
    }
}
