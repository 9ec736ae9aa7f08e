// Measures pieces of mapbook on their own, for the scripts in scripts/:
//   mapbook-bench download URL FILE   bytes, seconds, MiB/s and peak resident memory
//   mapbook-bench mvt-decode FILE…    per tile: bytes and median decode time over repeated runs
//   mapbook-bench sample-build DIR    builds the sample portal's packages into DIR: seconds and sizes
//   mapbook-bench frame WxH           main screen: compose and key-to-frame times, bytes per frame
//   mapbook-bench map PATH WxH [Z]    map view: compose from decoded tiles, key to frame on a pan, cold load
//   mapbook-bench json FILE…          per file: median parse time with mapbook's parser, JSONDecoder, JSONSerialization
//   mapbook-bench geography           the bundled overview geography: median time to read it and build the overview's shapes
//   mapbook-bench names [VTPK]        offline search: 100,000 names indexed, 3-letter prefix searches; reading a package's names
//   mapbook-bench features WxH        10,000 operational points and 2,000 polygons over the sample basemap: prepare, compose, identify
//   mapbook-bench projection [GDB]    1,000,000 Web Mercator points to WGS 84, hand-written and by PROJ; a projected geodatabase
//                                     drawn at 200×50 against its twin written in Web Mercator
import AppModel
import AppRuntime
import EventLoop
import ArcGISPortal
import Foundation
import Geodatabase
import HTTP
import MapRender
import MapbookAssets
import MapSources
import MapbookCore
import OfflineLibrary
import SamplePortal
import TerminalRender
import TerminalUI
import TileFormats
import TerminalCanvas
import ArcGISModel
import Geometry
import Places
import MapbookServices
import Editing
import PixelRender

func peakResidentKiB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

/// How long each of `runs` calls of `body` took, in seconds.
func timings(_ runs: Int, isolation: isolated (any Actor)? = #isolation, _ body: () async -> Void) async -> [Double] {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        await body()
        times.append(seconds(ContinuousClock.now - start))
    }
    return times
}

/// The median and 95th percentile of timings in seconds, in milliseconds.
func summary(_ times: [Double]) -> String {
    let sorted = times.sorted()
    return String(format: "median_ms=%.3f p95_ms=%.3f", sorted[sorted.count / 2] * 1e3, sorted[sorted.count * 95 / 100] * 1e3)
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("mapbook-bench: \(message)\n".utf8))
    exit(status)
}

func download(_ url: URL, to path: String) async {
    unlink(path)
    let started = ContinuousClock.now
    do {
        let result = try await HTTPClient().download(HTTPRequest(url: url), to: path)
        let elapsed = seconds(ContinuousClock.now - started)
        print(String(format: "bytes=%lld seconds=%.3f MiB/s=%.1f peakRSS_KiB=%d", result.size, elapsed,
                     Double(result.size) / 1_048_576 / elapsed, peakResidentKiB()))
    } catch {
        fail("\(error)", status: 1)
    }
}

/// Median of `runs` decodes of each tile, in microseconds; one line per tile, then the total.
func decodeMVT(_ paths: [String], runs: Int = 200) {
    var total = 0.0
    for path in paths {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)", status: 1) }
        var times: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            guard let tile = try? MVTTile(decoding: data) else { fail("\(path) does not decode", status: 1) }
            times.append(seconds(ContinuousClock.now - start))
            precondition(!tile.layers.isEmpty)
        }
        let median = times.sorted()[runs / 2] * 1e6
        total += median
        print(String(format: "%@ bytes=%d median_us=%.1f", (path as NSString).lastPathComponent, data.count, median))
    }
    print(String(format: "total_median_us=%.1f", total))
}

/// Builds the sample portal's content from scratch (no cache) and reports what it took.
func buildSample(into directory: String) {
    let started = ContinuousClock.now
    do {
        let content = try SampleContent.build(cacheDirectory: URL(fileURLWithPath: directory), useCache: false)
        let elapsed = seconds(ContinuousClock.now - started)
        for package in content.packages.values.sorted(by: { $0.name < $1.name }) {
            print(String(format: "%@ bytes=%d tiles=%d", package.name, package.data.count, package.tileCount))
        }
        print(String(format: "basemap_tiles=%d seconds=%.3f", content.basemap.tiles.count, elapsed))
    } catch {
        fail("\(error)", status: 1)
    }
}

/// The main screen with Explore Maine loaded from an in-process sample portal: median and p95 time
/// to compose a frame (layout metrics and render, as each redraw does), time from a key press to
/// its frame, and the bytes ncurses writes for the first frame, a one-row move and an unchanged frame.
/// A library in a fresh temporary folder, so a benchmark never reads or writes the user's.
let scratchLibrary = OfflineLibrary(root: NSTemporaryDirectory() + "mapbook-bench-\(getpid())", portalKey: "bench", webMap: .exploreMaine)

/// Waits until the program's state satisfies `done`.
@UIActor
func settle(_ program: Program, until done: (AppState) -> Bool) async {
    while !done(program.state) { await program.nextChange() }
}

@UIActor
func benchFrames(width: Int, height: Int, runs: Int = 300) async {
    let options = RenderOptions(glyphs: .unicode, theme: .color, geography: .bundled())
    let display = Renderer.display(width: width, height: height, options: options)
    var state: AppState
    do {
        let portal = try SamplePortal(content: SampleContent.build())
        defer { portal.stop() }
        let url = portal.baseURL
        let program = Program(state: AppState(portalHost: "", webMapID: .exploreMaine),
                              runtime: Runtime(library: scratchLibrary) { PortalClient(portal: url) })
        program.send(.terminal(.resized(display)))
        program.send(.started)
        await settle(program) { $0.catalog.phase == .loaded && $0.catalog.thumbnails.count == $0.catalog.areas.count + 1 }
        state = program.state
        await program.shutdown()
    } catch {
        fail("\(error)", status: 1)
    }
    // The bundled outline under the overview (as offline), the heavier of its two pictures.
    state.overview.basemap = nil
    _ = App.update(&state, .intent(.list(.selectRow(3))))
    func frame() -> Frame { Renderer.render(state, width: width, height: height, options: options) }
    var compose: [Double] = [], keyToFrame: [Double] = []
    for run in 0..<runs {
        var start = ContinuousClock.now
        _ = frame()
        compose.append(seconds(ContinuousClock.now - start))
        start = ContinuousClock.now
        _ = App.update(&state, .terminal(.key(run % 2 == 0 ? .down : .up)))
        _ = frame()
        keyToFrame.append(seconds(ContinuousClock.now - start))
    }
    print("compose_\(width)x\(height) \(summary(compose))")
    print("key_to_frame_\(width)x\(height) \(summary(keyToFrame))")
    do {
        let terminal = try OffscreenTerminal(width: width, height: height)
        defer { terminal.close() }
        let first = terminal.draw(frame())
        _ = App.update(&state, .terminal(.key(.down)))
        let move = terminal.draw(frame())
        let idle = terminal.draw(frame())
        print("bytes_first_frame=\(first) bytes_one_row_move=\(move) bytes_unchanged=\(idle)")
    } catch {
        fail("\(error)", status: 1)
    }
}

/// The map view over a package or tile folder (`sample` = the sample portal's Acadia package):
/// median and p95 of composing a frame from tiles already decoded, of a pan key to its new picture
/// (through the model, as the app does it), and of a cold load (fresh loader: read, gunzip, decode,
/// draw).
@UIActor
func benchMap(path: String, width: Int, height: Int, zoom: Double?) async {
    if path == "sample-topographic" { return await benchOnlineBasemap(width: width, height: height, zoom: zoom ?? 9) }
    if path == "sample-services" { return await benchServiceLayers(width: width, height: height, zoom: zoom ?? 9) }
    // A preplanned area's folder holds package.info; a folder of tiles does not.
    if path.hasSuffix(".mmpk") || path.hasSuffix(".geodatabase") || FileManager.default.fileExists(atPath: path + "/package.info") {
        return await benchArea(path: path, width: width, height: height, zoom: zoom)
    }
    var file = path
    if path == "sample" {
        guard let content = try? SampleContent.build(),
              let acadia = content.packages.values.first(where: { $0.name.contains("Acadia") }) else { fail("no sample content", status: 1) }
        file = NSTemporaryDirectory() + "mapbook-bench-acadia-\(getpid()).vtpk"
        _ = FileManager.default.createFile(atPath: file, contents: acadia.data)
    }
    let source: any MapSource
    do { source = try MapSources.open(path: file) } catch { fail(error.userSentence, status: 1) }
    let options = RenderOptions(glyphs: .unicode, theme: .color)
    let mapRect = ScreenLayout.mapRect(width: width, height: height)
    let columns = mapRect.width, rows = mapRect.height
    var viewport = MapViewport(fitting: source.extent ?? GeoExtent(xmin: -180, ymin: -80, xmax: 180, ymax: 80), columns: columns, rows: rows)
    if let zoom { viewport = MapViewport(center: viewport.center, zoom: zoom) }

    let loaded = await TileLoader(source: source).tiles(for: viewport, columns: columns, rows: rows)
    let scene = MapScene(viewport: viewport, style: source.style, tiles: loaded.tiles, tileSize: source.tileSize,
                         attribution: source.attribution)
    var compose: [Double] = []
    var report = MapDrawReport()
    for _ in 0..<200 {
        var frame = Frame(width: columns, height: rows)
        let start = ContinuousClock.now
        report = MapComposer.draw(scene, into: &frame, rect: frame.bounds)
        compose.append(seconds(ContinuousClock.now - start))
    }
    print("tiles=\(loaded.tiles.count) features=\(report.featuresDrawn) labels=\(report.labelsPlaced) zoom=\(String(format: "%.1f", viewport.zoom))")
    print("compose_\(columns)x\(rows) \(summary(compose))")

    let cold = await timings(20) { _ = await MapStack(source).render(MapRequest(viewport: viewport, columns: columns, rows: rows)) }
    print("cold_load_and_draw \(summary(cold))")

    let program = Program(state: .standaloneMap(title: "bench", sourceName: source.name, home: source.extent),
                          runtime: Runtime(library: scratchLibrary, map: MapStack(source)) { throw CancellationError() })
    /// Drawn for the current view, and nothing more to draw.
    func drawn(_ state: AppState) -> Bool {
        guard let map = state.map, let image = map.image else { return false }
        return !map.isDrawing && image.request.viewport == map.viewport
    }
    program.send(.terminal(.resized(Renderer.display(width: width, height: height, options: options))))
    program.send(.started)
    await settle(program, until: drawn)
    // Zoomed (in whole levels, as the keys do) to about the zoom measured above.
    if let zoom, let home = program.state.map?.viewport.zoom {
        let steps = (zoom - home).clampedInt(in: -30...30)
        program.send(.intent(.map(.zoomAt(steps: steps, column: columns / 2, row: rows / 2))))
        await settle(program, until: drawn)
    }
    var keyToFrame: [Double] = []
    for run in 0..<100 {
        let start = ContinuousClock.now
        program.send(.terminal(.key(run % 20 < 10 ? .right : .left)))
        await settle(program, until: drawn)
        _ = Renderer.render(program.state, width: width, height: height, options: options)
        keyToFrame.append(seconds(ContinuousClock.now - start))
    }
    let shownZoom = program.state.map.map { String(format: "%.1f", $0.viewport.zoom) } ?? "?"
    print("key_to_frame_pan_\(width)x\(height) \(summary(keyToFrame)) zoom=\(shownZoom)")
    await program.shutdown()
}

/// The pixel map at `columns × rows` cells of 8×20 pixels about `center`: pans of a quarter of the
/// view as the arrow keys make them (twice right, down, left, up: back where they started, 32 in
/// all), each drawn with Cairo from tiles in memory (whole, and keeping the last picture's pixels),
/// then encoded for kitty (its tiles: all of them, as for a first picture, and those a pan sends
/// with the last picture's held) and for sixel, each timed apart, and the bytes each sends; and
/// what shows at once: the last picture moved (kitty places the tiles it holds, sixel is sent it).
func benchPixels(path: String, columns: Int, rows: Int, zoom: Double, center: GeoPoint) async {
    let source: any MapSource
    do { source = try MapSources.open(path: path) } catch { fail(error.userSentence, status: 1) }
    let stack = MapStack(source)
    let cell = (width: 8, height: 20)
    var viewport = MapViewport(center: MercatorPoint(center), zoom: zoom)
    // The arrow keys' pans: a quarter of the view across (half the columns in dots) or down (the rows in dots).
    let (across, down) = (Double(columns / 2), Double(rows))
    let pans = [(across, 0.0), (across, 0), (0, down), (0, down), (-across, 0), (-across, 0), (0, -down), (0, -down)]
    // The tiles of every view the pans reach, loaded before anything is timed.
    var reached = viewport
    for pan in pans {
        reached = reached.panned(dotsX: pan.0, dotsY: pan.1)
        _ = try? await PixelMap.render(stack, MapRequest(viewport: reached, columns: columns, rows: rows), cell: cell)
    }
    var composeWhole: [Double] = [], compose: [Double] = [], rasterize: [Double] = [], kitty: [Double] = [], sixel: [Double] = [], band: [Double] = []
    var atHand: [Double] = [], movedAtHand: [Double] = []
    var kittyPan: [Double] = [], kittyBytes = 0, kittyPanBytes: [Int] = [], sixelBytes = 0, bandBytes = 0, placedBytes = 0
    var last: RasterImage?
    var previous = try? await PixelMap.render(stack, MapRequest(viewport: viewport, columns: columns, rows: rows), cell: cell)
        .image(for: MapRequest(viewport: viewport, columns: columns, rows: rows))
    /// kitty's tiles as the terminal holds them after the last picture.
    var held = KittyTiles(ids: 1_000...1_999_999)
    if let previous, let pixels = previous.pixels {
        _ = held.show(pixels, at: PixelMap.Geometry(previous.request, cell: cell).grid, cell: cell, zIndex: -1)
    }
    func size(_ update: KittyTiles.Update) -> Int { update.plain.count + update.placed.reduce(0) { $0 + $1.bytes.count + 8 } }
    for run in 0..<32 {
        viewport = viewport.panned(dotsX: pans[run % pans.count].0, dotsY: pans[run % pans.count].1)
        let request = MapRequest(viewport: viewport, columns: columns, rows: rows)
        // What shows at once: kitty places the picture it holds moved; sixel is sent the last picture moved.
        var start = ContinuousClock.now
        if let previous, let moved = PixelMap.atHand(from: previous, for: request)?.pixels {
            movedAtHand.append(seconds(ContinuousClock.now - start))
            _ = TerminalGraphics.sixelPieces(moved, cell: cell)
            atHand.append(seconds(ContinuousClock.now - start))
            var placing = held
            placedBytes = placing.placeHeld(at: PixelMap.Geometry(request, cell: cell).grid, columns: columns, rows: rows, cell: cell, zIndex: -1)
                .map(size) ?? 0
        }
        // The view drawn whole (a zoom's, a first one's), then as a pan draws it: the last picture's
        // pixels kept, what came into view drawn.
        start = ContinuousClock.now
        guard let whole = try? await PixelMap.render(stack, request, cell: cell) else { fail("Cairo could not draw", status: 1) }
        _ = whole.canvas.image()
        composeWhole.append(seconds(ContinuousClock.now - start))
        start = ContinuousClock.now
        guard let map = try? await PixelMap.render(stack, request, cell: cell, after: previous) else { fail("Cairo could not draw", status: 1) }
        let drawn = ContinuousClock.now
        let image = map.canvas.image()
        compose.append(seconds(ContinuousClock.now - start))
        rasterize.append(seconds(ContinuousClock.now - drawn))
        start = ContinuousClock.now
        var fresh = KittyTiles(ids: 1_000...1_999_999)
        kittyBytes = size(fresh.show(image, at: PixelMap.Geometry(request, cell: cell).grid, cell: cell, zIndex: -1))
        kitty.append(seconds(ContinuousClock.now - start))
        start = ContinuousClock.now
        kittyPanBytes.append(size(held.show(image, at: PixelMap.Geometry(request, cell: cell).grid, cell: cell, zIndex: -1)))
        kittyPan.append(seconds(ContinuousClock.now - start))
        start = ContinuousClock.now
        sixelBytes = TerminalGraphics.sixelPieces(image, cell: cell).reduce(0) { $0 + $1.bytes.count }
        sixel.append(seconds(ContinuousClock.now - start))
        // A three-row card closed: the band of cell rows under it, as sixel.
        start = ContinuousClock.now
        bandBytes = TerminalGraphics.sixelPieces(image.band(cell.height * 2..<cell.height * 5), cell: cell).reduce(0) { $0 + $1.bytes.count }
        band.append(seconds(ContinuousClock.now - start))
        last = image
        previous = map.image(for: request)
    }
    // A zoom in and out by a level about the centre: the last picture scaled, and kitty's tiles placed scaled.
    var zoomedAtHand: [Double] = [], zoomedBytes: [Int] = []
    if let previous {
        for run in 0..<20 {
            var request = previous.request
            request.viewport = previous.request.viewport.zoomed(by: run % 2 == 0 ? 1 : -1)
            let start = ContinuousClock.now
            guard PixelMap.atHand(from: previous, for: request) != nil else { continue }
            zoomedAtHand.append(seconds(ContinuousClock.now - start))
            var placing = held
            if run < 2, let placed = placing.placeHeld(at: PixelMap.Geometry(request, cell: cell).grid, columns: columns, rows: rows, cell: cell, zIndex: -1) {
                zoomedBytes.append(size(placed))
            }
        }
    }
    print("pixels=\(last?.width ?? 0)x\(last?.height ?? 0) zoom=\(String(format: "%.1f", zoom))")
    print("compose_whole \(summary(composeWhole))")
    print("compose_pan_keeping_the_last \(summary(compose))")
    print("  of_which_cairo_on_what_came_in \(summary(rasterize))")
    print("kitty_encode_all_tiles \(summary(kitty)) bytes=\(kittyBytes)")
    let panBytes = kittyPanBytes.sorted()
    print("kitty_encode_pan_tiles_held \(summary(kittyPan)) median_bytes=\(panBytes[panBytes.count / 2]) max_bytes=\(panBytes.last ?? 0)")
    print("sixel_encode \(summary(sixel)) bytes=\(sixelBytes)")
    print("sixel_band_3_rows \(summary(band)) bytes=\(bandBytes)")
    print("pan_at_hand_moved \(summary(movedAtHand))")
    print("kitty_pan_at_hand_placed bytes=\(placedBytes)")
    print("sixel_pan_at_hand_moved_and_sent \(summary(atHand))")
    print("zoom_at_hand_scaled \(summary(zoomedAtHand))")
    print("kitty_zoom_at_hand_placed bytes=\(zoomedBytes.map(String.init).joined(separator: ","))")
}

/// The sample portal's raster basemap with its vector reference layer, online (the portal in this
/// process): compose from decoded tiles (both layers), and a cold load through fresh loaders.
func benchOnlineBasemap(width: Int, height: Int, zoom: Double) async {
    guard let content = try? SampleContent.build(), let portal = try? SamplePortal(content: content) else { fail("no sample portal", status: 1) }
    defer { portal.stop() }
    let client = PortalClient(portal: portal.baseURL)
    guard let gallery = try? await client.basemapGallery(), let choice = gallery.first(where: { $0.item.title == "Maine Topographic" }) else {
        fail("no gallery", status: 1)
    }
    let mapRect = ScreenLayout.mapRect(width: width, height: height)
    let columns = mapRect.width, rows = mapRect.height
    let viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: -70.26, latitude: 43.66)), zoom: zoom)
    let request = MapRequest(viewport: viewport, columns: columns, rows: rows)
    func connect() async -> MapStack {
        do { return try await MapStack.connect(choice.basemap, http: HTTPClient(), cacheDirectory: nil) } catch { fail(error.userSentence, status: 1) }
    }
    let stack = await connect()
    _ = await stack.render(request)
    var image = await stack.render(request)
    var labels = 0
    // Drawn and named, as a screen shows it.
    let compose = await timings(100) {
        image = await stack.render(request)
        labels = image.picture.finished().placed.count
    }
    print("layers=\(stack.layers.count) raster_tiles=\(image.report.rasterTilesDrawn) labels=\(labels) zoom=\(zoom)")
    print("warm_render_\(columns)x\(rows) \(summary(compose))")
    let cold = await timings(10) { _ = await connect().render(request) }
    print("cold_connect_load_and_draw \(summary(cold))")
}

/// The sample's Maine services web map over its vector basemap: a map service's picture, a feature
/// collection and a CSV layer. Warm: the view's picture kept; a new view: settled, asked, decoded, drawn.
func benchServiceLayers(width: Int, height: Int, zoom: Double) async {
    guard let content = try? SampleContent.build(), let portal = try? SamplePortal(content: content) else { fail("no sample portal", status: 1) }
    defer { portal.stop() }
    let client = PortalClient(portal: portal.baseURL)
    guard let webMap = try? await client.webMap(ItemID(SampleServicesMap.id)!),
          var stack = try? await MapStack.connect(webMap.basemap, http: HTTPClient(), cacheDirectory: nil) else { fail("no web map", status: 1) }
    await OperationalLayerLoaders.open(OperationalLayers(layers: webMap.flatOperationalLayers, online: true), library: scratchLibrary, client: client)
        .add(to: &stack)
    let mapRect = ScreenLayout.mapRect(width: width, height: height)
    let columns = mapRect.width, rows = mapRect.height
    var viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: -69.1, latitude: 44.1)), zoom: zoom)
    var image = await stack.render(MapRequest(viewport: viewport, columns: columns, rows: rows))
    let warm = await timings(100) {
        image = await stack.render(MapRequest(viewport: viewport, columns: columns, rows: rows))
        _ = image.picture.finished()
    }
    print("images=\(stack.images.count) features=\(image.report.featuresDrawn) pictures=\(image.report.rasterTilesDrawn) zoom=\(zoom)")
    print("warm_render_\(columns)x\(rows) \(summary(warm))")
    var fresh: [Double] = []
    for _ in 0..<20 {
        viewport.center.x += 2_000
        let start = ContinuousClock.now
        _ = await stack.render(MapRequest(viewport: viewport, columns: columns, rows: rows))
        fresh.append(seconds(ContinuousClock.now - start))
    }
    print("new_view_settle_export_draw \(summary(fresh))")
}

/// An offline area as `mapbook open` opens it (a preplanned area's folder, a `.mmpk`, a
/// `.geodatabase`): its tiles and its geodatabase's features drawn, warm (what every key costs once
/// the view's tiles and features are at hand), and opened and drawn cold.
func benchArea(path: String, width: Int, height: Int, zoom: Double?) async {
    let mapRect = ScreenLayout.mapRect(width: width, height: height)
    let columns = mapRect.width, rows = mapRect.height
    func opened() -> (SideLoadedMap, MapViewport) {
        guard let map = try? SideLoadedMap.open(path: path) else { fail("cannot open \(path)", status: 1) }
        var viewport = MapViewport(fitting: map.home ?? GeoExtent(xmin: -180, ymin: -80, xmax: 180, ymax: 80), columns: columns, rows: rows)
        if let zoom { viewport = MapViewport(center: viewport.center, zoom: zoom) }
        return (map, viewport)
    }
    let (map, viewport) = opened()
    let request = MapRequest(viewport: viewport, columns: columns, rows: rows)
    var image = await map.stack.render(request)
    let warm = await timings(100) {
        image = await map.stack.render(request)
        _ = image.picture.finished()
    }
    print("layers=\(map.stack.features.count) features=\(image.report.featuresDrawn) tiles=\(image.report.rasterTilesDrawn) zoom=\(String(format: "%.1f", viewport.zoom))")
    print("warm_render_\(columns)x\(rows) \(summary(warm))")
    let cold = await timings(10) {
        let (fresh, view) = opened()
        _ = await fresh.stack.render(MapRequest(viewport: view, columns: columns, rows: rows)).picture.finished()
    }
    print("open_and_first_draw \(summary(cold))")
}

/// Whether PROJ could take over Web Mercator ⇄ WGS 84 (a million points each way it could be
/// asked), and what a projected geodatabase costs against the same features kept in Web Mercator.
func benchProjection(twinOf path: String?) async {
    let count = 1_000_000
    var generator = SystemRandomNumberGenerator()
    let xs = (0..<count).map { _ in Double.random(in: -8_000_000 ... -7_400_000, using: &generator) }
    let ys = (0..<count).map { _ in Double.random(in: 5_300_000 ... 6_000_000, using: &generator) }
    guard let proj = try? CoordinateTransform.between(.webMercator, .wgs84) else { fail("PROJ has no Web Mercator", status: 1) }
    var checksum = 0.0
    let hand = await timings(5) {
        for i in 0..<count { let p = WebMercator.geographic(x: xs[i], y: ys[i]); checksum += p.longitude }
    }
    let batch = await timings(5) {
        var bx = xs, by = ys
        proj.transform(xs: &bx, ys: &by)
        checksum += bx[0]
    }
    let single = await timings(5) {
        for i in 0..<count { checksum += proj(x: xs[i], y: ys[i]).x }
    }
    print("web_mercator_to_wgs84_1M hand_written \(summary(hand))")
    print("web_mercator_to_wgs84_1M proj_batch \(summary(batch))")
    print("web_mercator_to_wgs84_1M proj_one_by_one \(summary(single)) (checksum \(checksum.isFinite))")
    guard let path else { return }
    let twin = NSTemporaryDirectory() + "mapbook-bench-twin-\(getpid()).geodatabase"
    defer { try? FileManager.default.removeItem(atPath: twin) }
    do {
        let gdb = try Geodatabase(path: path)
        let writer = try GeodatabaseWriter(path: twin)
        for (index, layer) in gdb.layers.enumerated() {
            let table = "Twin\(index)"
            let info: JSONValue = layer.serviceItem ?? .object([
                "name": .string(layer.info.name), "geometryType": .string(layer.info.geometryType.rawValue),
                "objectIdField": layer.info.objectIDField.map(JSONValue.string) ?? .null, "fields": .array([]),
            ])
            try writer.addLayer(id: index, table: table, info: info)
            for feature in try gdb.features(of: layer).features {
                guard let geometry = feature.geometry else { continue }
                func mercator(_ points: [GeoPoint]) -> [(x: Double, y: Double)] { points.map { WebMercator.projected(longitude: $0.longitude, latitude: $0.latitude) } }
                let shape: StoredShape = switch geometry {
                case .points(let points): points.count == 1 ? .point(x: mercator(points)[0].x, y: mercator(points)[0].y) : .multipoint(mercator(points))
                case .lines(let lines): .polyline(lines.map(mercator))
                case .polygons(let polygons): .polygon(polygons.joined().map(mercator))
                }
                try writer.insert(into: table, attributes: [:], shape: shape)
            }
        }
        try writer.finish()
    } catch {
        fail("cannot write the Web Mercator twin: \(error)", status: 1)
    }
    print("== \((path as NSString).lastPathComponent), as the file keeps it")
    await benchArea(path: path, width: 200, height: 52, zoom: nil)
    print("== the same features, written in Web Mercator")
    await benchArea(path: twin, width: 200, height: 52, zoom: nil)
}

/// Median of `runs` parses of each file into a document tree, by mapbook's parser and Foundation's two.
func benchJSON(_ paths: [String], runs: Int = 20) {
    func median(_ parse: (Data) throws -> Any, _ data: Data) -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            guard (try? parse(data)) != nil else { fail("does not parse", status: 1) }
            times.append(seconds(ContinuousClock.now - start))
        }
        return times.sorted()[runs / 2] * 1000
    }
    for path in paths {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)", status: 1) }
        let ours = median({ try JSONValue(parsing: $0) }, data)
        let decoder = median({ try JSONDecoder().decode(JSONValue.self, from: $0) }, data)
        let serialization = median({ try JSONSerialization.jsonObject(with: $0) }, data)
        print(String(format: "%@ bytes=%d mapbook_ms=%.2f JSONDecoder_ms=%.2f JSONSerialization_ms=%.2f",
                     (path as NSString).lastPathComponent, data.count, ours, decoder, serialization))
    }
}

/// Median of 50 reads of the bundled geography the overview draws, to the shapes it draws.
func benchGeography() {
    var times: [Double] = []
    for _ in 0..<50 {
        let start = ContinuousClock.now
        let geography = OverviewGeography.bundled()
        times.append(seconds(ContinuousClock.now - start))
        precondition(!geography.land.isEmpty)
    }
    print(String(format: "bundled_geography_ms median=%.2f min=%.2f", times.sorted()[25] * 1000, times.min()! * 1000))
}

/// Offline search: the time to index 100,000 names (the bundled places repeated with a number, so
/// prefixes have many matches), the median of 3-letter prefix searches over it, and how long
/// reading a vector package's names takes.
func benchNames(package: String?) {
    // First use of the world gazetteer: read and decoded, then indexed.
    var start = ContinuousClock.now
    let bundled = MapbookAssets.placeNames()
    print(String(format: "world_gazetteer places=%d read_ms=%.1f", bundled.count, seconds(ContinuousClock.now - start) * 1000))
    start = ContinuousClock.now
    let world = PlaceIndex(places: bundled)
    print(String(format: "world_gazetteer index_ms=%.1f", seconds(ContinuousClock.now - start) * 1000))
    printMedian("world_gazetteer prefix_3_letters", of: world, queries: namePrefixes)
    printMedian("world_gazetteer typo (no prefix matches)", of: world, queries: ["hambrug", "austn", "dalals", "xqzv"])
    var names: [PlaceName] = []
    var round = 0
    while names.count < 100_000 {
        for place in bundled where names.count < 100_000 {
            names.append(PlaceName(name: round == 0 ? place.name : "\(place.name) \(round)", point: place.point, rank: place.rank + Double(round)))
        }
        round += 1
    }
    start = ContinuousClock.now
    let index = PlaceIndex(places: names)
    print(String(format: "index_100k_names_ms=%.0f", seconds(ContinuousClock.now - start) * 1000))
    printMedian("prefix_search_3_letters", of: index, queries: namePrefixes)
    guard let package else { return }
    start = ContinuousClock.now
    guard let opened = try? TilePackage(path: package), let found = try? PlaceIndex.names(in: opened) else { fail("cannot read \(package)", status: 1) }
    print(String(format: "package_names=%d read_ms=%.0f", found.count, seconds(ContinuousClock.now - start) * 1000))
}

let namePrefixes = ["ban", "por", "bar", "ber", "new", "sou", "mon", "lon", "par", "wes", "eas", "sai", "san", "cal", "lin"]

/// The median and 95th percentile of searches for `queries`, 20 rounds, near Maine.
func printMedian(_ label: String, of index: PlaceIndex, queries: [String]) {
    var times: [Double] = []
    var hits = 0
    for _ in 0..<20 {
        for query in queries {
            let start = ContinuousClock.now
            hits += index.search(query, near: GeoPoint(longitude: -69, latitude: 45), limit: 8).count
            times.append(seconds(ContinuousClock.now - start))
        }
    }
    let sorted = times.sorted()
    print(String(format: "%@ median_ms=%.3f p95_ms=%.3f (results %d)", label, sorted[sorted.count / 2] * 1000,
                 sorted[sorted.count * 95 / 100] * 1000, hits))
}

/// Operational layers over the sample area's basemap: 10,000 points (a unique-value renderer of
/// three classes, labelled) and 2,000 polygons (class breaks, blended fills, outlined), scattered
/// over the view: the time to prepare them (once per query), to compose the map with them, and to
/// identify at the centre.
func benchFeatures(width: Int, height: Int) async {
    guard let content = try? SampleContent.build(),
          let acadia = content.packages.values.first(where: { $0.name.contains("Acadia") }) else { fail("no sample content", status: 1) }
    let file = NSTemporaryDirectory() + "mapbook-bench-features-\(getpid()).vtpk"
    _ = FileManager.default.createFile(atPath: file, contents: acadia.data)
    defer { unlink(file) }
    guard let source = try? MapSources.open(path: file) else { fail("cannot open the sample package", status: 1) }
    let mapRect = ScreenLayout.mapRect(width: width, height: height)
    let columns = mapRect.width, rows = mapRect.height
    let viewport = MapViewport(fitting: source.extent!, columns: columns, rows: rows)
    let view = viewport.geographicExtent(columns: columns, rows: rows)
    // A fixed sequence, so every run draws the same features.
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random() -> Double {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(seed >> 11) / Double(1 << 53)
    }
    func point() -> GeoPoint {
        GeoPoint(longitude: view.xmin + random() * (view.xmax - view.xmin), latitude: view.ymin + random() * (view.ymax - view.ymin))
    }
    func marker(_ style: String, _ r: UInt8, _ g: UInt8, _ b: UInt8) -> FeatureSymbol {
        FeatureSymbol(kind: .marker(style: style), color: SymbolColor(r: r, g: g, b: b), size: 8)
    }
    let kinds = ["city", "town", "village"]
    let pointInfo = FeatureLayerInfo(name: "Points", geometryType: .point, renderer: FeatureRenderer(
        kind: .uniqueValue(fields: ["kind"], delimiter: ","), classes: [
            RendererClass(match: .value("city"), label: "City", symbol: marker("esriSMSSquare", 200, 30, 40)),
            RendererClass(match: .value("town"), label: "Town", symbol: marker("esriSMSCircle", 240, 140, 20)),
            RendererClass(match: .value("village"), label: "Village", symbol: marker("esriSMSCircle", 120, 80, 160)),
        ]), labeling: FeatureLabeling(parts: [.field("name")]))
    let points = (0..<10_000).map { index in
        LayerFeature(geometry: .points([point()]), attributes: ["kind": .string(kinds[index % 3]), "name": .string("P\(index)")])
    }
    func fill(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> FeatureSymbol {
        FeatureSymbol(kind: .fill(style: "esriSFSSolid"), color: SymbolColor(r: r, g: g, b: b, a: 110), outline: SymbolColor(r: 90, g: 90, b: 90))
    }
    let polygonInfo = FeatureLayerInfo(name: "Polygons", geometryType: .polygon, renderer: FeatureRenderer(
        kind: .classBreaks(field: "v"), classes: [
            RendererClass(match: .range(lower: 0, upper: 50, inclusiveLower: true), label: "Low", symbol: fill(199, 233, 192)),
            RendererClass(match: .range(lower: 50, upper: 100, inclusiveLower: false), label: "High", symbol: fill(35, 139, 69)),
        ]))
    // Octagons a few hundredths of the view across.
    let radius = (view.xmax - view.xmin) / 60
    let polygons = (0..<2_000).map { index -> LayerFeature in
        let centre = point()
        let ring = (0...8).map { k in
            let angle = Double(k % 8) / 8 * 2 * Double.pi
            return GeoPoint(longitude: centre.longitude + radius * cos(angle), latitude: centre.latitude + radius * 0.7 * sin(angle))
        }
        return LayerFeature(geometry: .polygons([[ring]]), attributes: ["v": .number(Double(index % 100))])
    }
    var start = ContinuousClock.now
    let preparedPoints = PreparedFeatureLayer(info: pointInfo, features: points)
    let preparedPolygons = PreparedFeatureLayer(info: polygonInfo, features: polygons)
    print(String(format: "prepare_12000_features_ms=%.1f", seconds(ContinuousClock.now - start) * 1000))

    let loaded = await TileLoader(source: source).tiles(for: viewport, columns: columns, rows: rows)
    let scene = MapScene(viewport: viewport, style: source.style, tiles: loaded.tiles, tileSize: source.tileSize, attribution: source.attribution)
    let layers = [FeatureLayerScene(layer: preparedPolygons, opacity: 0.8), FeatureLayerScene(layer: preparedPoints)]
    var basemapOnly: [Double] = [], withFeatures: [Double] = []
    var report = MapDrawReport()
    for _ in 0..<200 {
        var frame = Frame(width: columns, height: rows)
        start = ContinuousClock.now
        MapComposer.draw(scene, into: &frame, rect: frame.bounds)
        basemapOnly.append(seconds(ContinuousClock.now - start))
        frame = Frame(width: columns, height: rows)
        start = ContinuousClock.now
        report = MapComposer.draw([scene], features: layers, into: &frame, rect: frame.bounds)
        withFeatures.append(seconds(ContinuousClock.now - start))
    }
    print("features_drawn=\(report.featuresDrawn) labels=\(report.labelsPlaced) zoom=\(String(format: "%.1f", viewport.zoom))")
    print("compose_basemap_only_\(columns)x\(rows) \(summary(basemapOnly))")
    print("compose_with_features_\(columns)x\(rows) \(summary(withFeatures))")
    var identify: [Double] = []
    let centre = viewport.center
    for _ in 0..<200 {
        start = ContinuousClock.now
        _ = preparedPoints.hits(at: centre, tolerance: viewport.resolution * 4)
        _ = preparedPolygons.hits(at: centre, tolerance: viewport.resolution * 4)
        identify.append(seconds(ContinuousClock.now - start))
    }
    print("identify_12000_features \(summary(identify))")
    // Each layer alone, to see where the time goes.
    for (name, alone) in [("points", [layers[1]]), ("polygons", [layers[0]])] {
        var times: [Double] = []
        for _ in 0..<100 {
            var frame = Frame(width: columns, height: rows)
            start = ContinuousClock.now
            MapComposer.draw([scene], features: alone, into: &frame, rect: frame.bounds)
            times.append(seconds(ContinuousClock.now - start))
        }
        print("compose_\(name)_only \(summary(times))")
    }
}

/// A mobile geodatabase read as `mapbook open` reads it: opened (schema and layers), every layer's
/// features read and decoded, and a box query through the spatial index; 20 rounds each.
func benchGeodatabase(path: String) async {
    var open: [Double] = [], read: [Double] = [], box: [Double] = []
    var shapes = 0
    for _ in 0..<20 {
        var start = ContinuousClock.now
        guard let gdb = try? Geodatabase(path: path) else { fail("cannot read \(path)", status: 1) }
        open.append(seconds(ContinuousClock.now - start))
        start = ContinuousClock.now
        shapes = 0
        for layer in gdb.layers { shapes += (try? gdb.features(of: layer).features.count) ?? 0 }
        read.append(seconds(ContinuousClock.now - start))
        start = ContinuousClock.now
        let maine = GeoExtent(xmin: -71.1, ymin: 43.0, xmax: -66.9, ymax: 47.5)
        for layer in gdb.layers { _ = try? gdb.features(of: layer, within: maine) }
        box.append(seconds(ContinuousClock.now - start))
    }
    print("geodatabase_open \(summary(open))")
    print("geodatabase_read_all shapes=\(shapes) \(summary(read))")
    print("geodatabase_box_query_maine \(summary(box))")

    // What `mapbook open FILE` does before its first frame: open, read, draw at 200×50.
    let first = await timings(10) {
        guard let opened = try? SideLoadedMap.open(path: path) else { fail("cannot open \(path)", status: 1) }
        let viewport = MapViewport(fitting: opened.home ?? GeoExtent(xmin: -125, ymin: 24, xmax: -66, ymax: 50), columns: 200, rows: 50)
        _ = await opened.stack.render(MapRequest(viewport: viewport, columns: 200, rows: 50))
    }
    print("geodatabase_open_and_first_draw_200x50 \(summary(first))")
    await benchGeodatabaseQuery(points: 100_000)
}

/// The edit journal in `folder` (on the disk whose fsync is measured): one save with its commit
/// fsynced, 200 times over a journal of 10,000 edits; then reading every unsynced edit back.
func benchJournal(folder: String) {
    let area = folder + "/mapbook-bench-journal-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: area) }
    do {
        try FileManager.default.createDirectory(atPath: area, withIntermediateDirectories: true)
        let journal = try EditJournal(areaFolder: area)
        let layer = EditLayer(title: "Sites", serviceLayerURL: "https://example.com/arcgis/rest/services/Sites/FeatureServer/0")
        func edit(_ index: Int) -> FeatureEdit {
            FeatureEdit(kind: .add, layer: layer, geometry: .object(["type": .string("Point"), "coordinates": .array([.number(-69.2), .number(44.3)])]),
                        attributes: ["SITE_NAME": .string("Site \(index)"), "KIND": .number(2), "NOTES": .string(String(repeating: "n", count: 200))])
        }
        for index in 0..<10_000 { try journal.save(edit(index)) }
        var saves: [Double] = []
        for index in 0..<200 {
            let start = ContinuousClock.now
            try journal.save(edit(index))
            saves.append(seconds(ContinuousClock.now - start))
        }
        print("journal_save_fsynced \(summary(saves))")
        var reads: [Double] = []
        for _ in 0..<10 {
            let start = ContinuousClock.now
            _ = try journal.unsynced()
            reads.append(seconds(ContinuousClock.now - start))
        }
        print("journal_read_10200_unsynced \(summary(reads))")
    } catch {
        fail(error.userSentence, status: 1)
    }
}

/// `edits sync` of 1,000 new places (and 96 changes to 16 counties) against the sample portal on this machine:
/// the journal read, the service asked which adds it holds, the edits sent by `applyEdits` in
/// requests of 250, the outcomes recorded. Five rounds, each with fresh edits on a fresh portal.
func benchSync(folder: String) async {
    do {
        let content = try SampleContent.build()
        var rounds: [Double] = []
        for round in 0..<5 {
            let portal = try SamplePortal(content: content)
            defer { portal.stop() }
            let area = folder + "/mapbook-bench-sync-\(getpid())-\(round)"
            defer { try? FileManager.default.removeItem(atPath: area) }
            try FileManager.default.createDirectory(atPath: area, withIntermediateDirectories: true)
            let journal = try EditJournal(areaFolder: area)
            let service = portal.baseURL.absoluteString + "/arcgis/rest/services/Explore_Maine_Places/FeatureServer"
            let places = EditLayer(title: "Places", serviceLayerURL: service + "/0"), counties = EditLayer(title: "Counties", serviceLayerURL: service + "/1")
            for index in 0..<1_000 {
                let point = JSONValue.object(["type": .string("Point"), "coordinates": .array([.number(-70.2 + Double(index) / 10_000), .number(43.7)])])
                try journal.save(FeatureEdit(kind: .add, layer: places, geometry: point, attributes: ["name": .string("Site \(index)"), "population": .number(10)]))
            }
            for county in 1...16 {
                for step in 0..<6 {
                    try journal.save(FeatureEdit(kind: .update, layer: counties, globalID: String(format: "{5A3E0000-0000-4000-8000-%04X%08X}", 1, county),
                                                 objectID: Int64(county), attributes: ["NAME": .string("County \(county) \(step)")]))
                }
            }
            let start = ContinuousClock.now
            let report = try await EditSyncer(client: PortalClient(portal: portal.baseURL)).sync(journal, areaTitle: "bench")
            rounds.append(seconds(ContinuousClock.now - start))
            guard report.done == report.entries.count, try journal.unsynced().isEmpty else {
                fail("the sync left \(report.entries.count - report.done) changes unsynced", status: 1)
            }
        }
        print("sync_1000_adds_16_updates \(summary(rounds))")
    } catch {
        fail(error.userSentence, status: 1)
    }
}

/// One edit saved from the browser's form and the map redrawn, on Greater Portland downloaded into
/// DATA_DIR from PORTAL (scripts/bench-edit does both): the area's layers opened by `AreaEditor`
/// and the point saved (what `EditsHandler` does on Enter), then the area's operational layers
/// opened again with the journal laid over them and drawn at 200×50 (what the map does after a
/// save; the basemap's tiles, kept drawn, are not counted). 50 rounds, the journal growing.
func benchEdit(root: String, portal: String) async {
    guard let url = URL(string: portal) else { fail("not a portal address", status: 64) }
    let library = OfflineLibrary(root: root, portal: url, webMap: ItemID(SampleCatalog.webMapID)!)
    do {
        guard let catalog = try library.loadCatalog(records: library.downloadRecords()),
              let area = catalog.areas.first(where: { $0.item.title == "Greater Portland" }) else {
            fail("Greater Portland is not downloaded in \(root)", status: 1)
        }
        let layers = catalog.webMap.flatOperationalLayers
        let viewport = MapViewport(center: MercatorPoint(GeoPoint(longitude: -70.26, latitude: 43.66)), zoom: 11)
        let request = MapRequest(viewport: viewport, columns: 198, rows: 46)
        var saves: [Double] = [], redraws: [Double] = [], both: [Double] = []
        for round in 0..<50 {
            let start = ContinuousClock.now
            let editor = try await AreaEditor.open(area: area.item.id, title: area.item.title, library: library, webMapLayers: layers)
            _ = try editor.save(.add(GeoPoint(longitude: -70.26 + Double(round) / 1_000, latitude: 43.66)), layer: "Places",
                                values: [("name", "Bench \(round)"), ("size_class", "Village")])
            let saved = ContinuousClock.now
            var stack = MapStack(layers: [])
            await OperationalLayerLoaders.open(OperationalLayers(area: area.item.id, layers: layers, online: false), library: library, client: nil)
                .add(to: &stack)
            let image = await stack.render(request)
            _ = image.picture.finished()
            let drawn = ContinuousClock.now
            guard image.report.featuresDrawn > 0 else { fail("nothing was drawn", status: 1) }
            saves.append(seconds(saved - start)); redraws.append(seconds(drawn - saved)); both.append(seconds(drawn - start))
        }
        print("edit_open_and_save \(summary(saves))")
        print("edit_layers_reopened_and_drawn_198x46 \(summary(redraws))")
        print("edit_save_and_redraw \(summary(both))")
    } catch {
        fail(error.userSentence, status: 1)
    }
}

/// An area's layer drawn as it opens — the geodatabase read, the features prepared, the map
/// composed at 200×50 — three ways: 100,000 points in the geodatabase; 110,000 in it; 100,000
/// in it and 10,000 added in the area's journal (read, laid over, then prepared), not yet synced
/// and synced. 20 rounds each.
func benchJournalOverlay(folder: String) {
    let area = folder + "/mapbook-bench-overlay-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: area) }
    let box = GeoExtent(xmin: -71.1, ymin: 43.0, xmax: -66.9, ymax: 47.5)
    var generator = SystemRandomNumberGenerator()
    func point() -> GeoPoint {
        GeoPoint(longitude: Double.random(in: box.xmin...box.xmax, using: &generator), latitude: Double.random(in: box.ymin...box.ymax, using: &generator))
    }
    let info = JSONValue.object([
        "name": .string("Sites"), "geometryType": .string("esriGeometryPoint"), "objectIdField": .string("OBJECTID"),
        "fields": .array([.object(["name": .string("OBJECTID"), "type": .string("esriFieldTypeOID")]),
                          .object(["name": .string("GlobalID"), "type": .string("esriFieldTypeGlobalID")]),
                          .object(["name": .string("NAME"), "type": .string("esriFieldTypeString")])]),
        "drawingInfo": .object(["renderer": .object(["type": .string("simple"), "symbol": .object([
            "type": .string("esriSMS"), "style": .string("esriSMSCircle"), "color": .array([200, 30, 40, 255].map { .number($0) }), "size": .number(6)])])]),
    ])
    let base = (0..<100_000).map { _ in point() }, added = (0..<10_000).map { _ in point() }
    func write(_ points: [GeoPoint], to path: String) throws {
        let writer = try GeodatabaseWriter(path: path)
        try writer.addLayer(id: 0, table: "Sites", info: info)
        for (index, p) in points.enumerated() {
            let m = WebMercator.projected(longitude: p.longitude, latitude: p.latitude)
            try writer.insert(into: "Sites", attributes: ["NAME": .string("Site \(index)"), "GlobalID": .string(FeatureEdit.newGlobalID())],
                              shape: .point(x: m.x, y: m.y))
        }
        try writer.finish()
    }
    do {
        try FileManager.default.createDirectory(atPath: area, withIntermediateDirectories: true)
        try write(base, to: area + "/base.geodatabase")
        try write(base + added, to: area + "/all.geodatabase")
        let journal = try EditJournal(areaFolder: area)
        for (index, p) in added.enumerated() {
            try journal.save(FeatureEdit(kind: .add, layer: EditLayer(title: "Sites"), geometry: GeoJSON.json(.points([p])),
                                         attributes: ["NAME": .string("Added \(index)")]))
        }
        let viewport = MapViewport(fitting: box, columns: 200, rows: 50)
        let scene = MapScene(viewport: viewport, tiles: [], tileSize: 512)
        func draw(_ path: String, overlay: Bool) throws -> Double {
            let start = ContinuousClock.now
            let gdb = try Geodatabase(path: path)
            guard let layer = gdb.layers.first else { throw GeodatabaseError("no layer") }
            var features = try gdb.features(of: layer).features
            if overlay { features = EditOverlay.apply(try journal.all(), to: features, info: layer.info) }
            let prepared = PreparedFeatureLayer(info: layer.info, features: features)
            var frame = Frame(width: 200, height: 50)
            MapComposer.draw([scene], features: [FeatureLayerScene(layer: prepared)], into: &frame, rect: frame.bounds)
            return seconds(ContinuousClock.now - start)
        }
        var plain: [Double] = [], stored: [Double] = [], journalled: [Double] = [], synced: [Double] = []
        for _ in 0..<20 {
            plain.append(try draw(area + "/base.geodatabase", overlay: false))
            stored.append(try draw(area + "/all.geodatabase", overlay: false))
            journalled.append(try draw(area + "/base.geodatabase", overlay: true))
        }
        // Synced, the adds are looked for in the data too (an area downloaded again holds them).
        try journal.markSynced(try journal.all().map(\.sequence))
        for _ in 0..<20 { synced.append(try draw(area + "/base.geodatabase", overlay: true)) }
        print("area_draw_100000_points \(summary(plain))")
        print("area_draw_110000_points_stored \(summary(stored))")
        print("area_draw_100000_points_and_10000_journal \(summary(journalled))")
        print("area_draw_100000_points_and_10000_journal_synced \(summary(synced))")
        // Where the journal's share goes: reading it, and laying it over.
        let gdb = try Geodatabase(path: area + "/base.geodatabase")
        guard let layer = gdb.layers.first else { throw GeodatabaseError("no layer") }
        let features = try gdb.features(of: layer).features
        var reads: [Double] = [], overlays: [Double] = []
        for _ in 0..<20 {
            var start = ContinuousClock.now
            let edits = try journal.all()
            reads.append(seconds(ContinuousClock.now - start))
            start = ContinuousClock.now
            _ = EditOverlay.apply(edits, to: features, info: layer.info)
            overlays.append(seconds(ContinuousClock.now - start))
        }
        print("journal_read_10000 \(summary(reads))")
        print("overlay_10000_over_100000 \(summary(overlays))")
        let median = { (times: [Double]) in times.sorted()[times.count / 2] }
        print(String(format: "journal_over_without=%.2f journal_over_stored=%.2f synced_over_without=%.2f synced_over_stored=%.2f",
                     median(journalled) / median(plain), median(journalled) / median(stored), median(synced) / median(plain), median(synced) / median(stored)))
    } catch {
        fail(error.userSentence, status: 1)
    }
}

/// A box query of 1 % of a geodatabase's extent (a tenth of each side) through its RTREE, on
/// `points` random points over the conterminous United States written here; 20 boxes.
func benchGeodatabaseQuery(points: Int) async {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-bench-\(getpid()).geodatabase").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let area = GeoExtent(xmin: -125, ymin: 25, xmax: -67, ymax: 49)
    var generator = SystemRandomNumberGenerator()
    let info = JSONValue.object([
        "name": .string("Points"), "geometryType": .string("esriGeometryPoint"), "objectIdField": .string("OBJECTID"),
        "fields": .array([.object(["name": .string("OBJECTID"), "type": .string("esriFieldTypeOID")]),
                          .object(["name": .string("NAME"), "type": .string("esriFieldTypeString")])]),
    ])
    let writeStart = ContinuousClock.now
    do {
        let writer = try GeodatabaseWriter(path: path)
        try writer.addLayer(id: 0, table: "Points", info: info)
        for index in 0..<points {
            let p = WebMercator.projected(longitude: Double.random(in: area.xmin...area.xmax, using: &generator),
                                          latitude: Double.random(in: area.ymin...area.ymax, using: &generator))
            try writer.insert(into: "Points", attributes: ["NAME": .string("Point \(index)")], shape: .point(x: p.x, y: p.y))
        }
        try writer.finish()
    } catch {
        fail("cannot write \(path): \(error.userSentence)", status: 1)
    }
    print("geodatabase_write_points=\(points) seconds=\(String(format: "%.2f", seconds(ContinuousClock.now - writeStart)))")
    guard let gdb = try? Geodatabase(path: path), let layer = gdb.layers.first else { fail("cannot read \(path)", status: 1) }
    var times: [Double] = [], found = 0
    let w = (area.xmax - area.xmin) / 10, h = (area.ymax - area.ymin) / 10
    for round in 0..<20 {
        let x = area.xmin + Double(round % 9) * w, y = area.ymin + Double(round % 7) * h
        let start = ContinuousClock.now
        found += (try? gdb.features(of: layer, within: GeoExtent(xmin: x, ymin: y, xmax: x + w, ymax: y + h)).features.count) ?? 0
        times.append(seconds(ContinuousClock.now - start))
    }
    print("geodatabase_box_query_1_percent_of_\(points)_points features_per_box=\(found / 20) \(summary(times))")
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "download" where arguments.count == 4:
    guard let url = URL(string: arguments[2]) else { fail("not a URL: \(arguments[2])", status: 64) }
    await download(url, to: arguments[3])
case "mvt-decode" where arguments.count > 2:
    decodeMVT(Array(arguments.dropFirst(2)))
case "sample-build" where arguments.count == 3:
    buildSample(into: arguments[2])
case "frame" where arguments.count == 3:
    let size = arguments[2].split(separator: "x").compactMap { Int($0) }
    guard size.count == 2, size.allSatisfy({ $0 > 0 && $0 < 1000 }) else { fail("size must be WxH, like 200x50", status: 64) }
    await benchFrames(width: size[0], height: size[1])
case "map" where arguments.count == 4 || arguments.count == 5:
    let size = arguments[3].split(separator: "x").compactMap { Int($0) }
    guard size.count == 2, size.allSatisfy({ $0 > 2 && $0 < 1000 }) else { fail("size must be WxH, like 200x52", status: 64) }
    await benchMap(path: arguments[2], width: size[0], height: size[1], zoom: arguments.count == 5 ? Double(arguments[4]) : nil)
case "pixels" where arguments.count == 6:
    let size = arguments[3].split(separator: "x").compactMap { Int($0) }
    guard size.count == 2, size.allSatisfy({ $0 > 2 && $0 < 1000 }) else { fail("size must be WxH, like 200x50", status: 64) }
    let center = arguments[5].split(separator: ",").compactMap { Double($0) }
    guard center.count == 2, abs(center[0]) <= 180, abs(center[1]) <= 85 else { fail("the centre must be LON,LAT, like 10.5,51", status: 64) }
    await benchPixels(path: arguments[2], columns: size[0], rows: size[1], zoom: Double(arguments[4]) ?? 7,
                      center: GeoPoint(longitude: center[0], latitude: center[1]))
case "geography":
    benchGeography()
case "names" where arguments.count <= 3:
    benchNames(package: arguments.count == 3 ? arguments[2] : nil)
case "json" where arguments.count > 2:
    benchJSON(Array(arguments.dropFirst(2)))
case "geodatabase" where arguments.count == 3:
    await benchGeodatabase(path: arguments[2])
case "features" where arguments.count == 3:
    let size = arguments[2].split(separator: "x").compactMap { Int($0) }
    guard size.count == 2, size.allSatisfy({ $0 > 2 && $0 < 1000 }) else { fail("size must be WxH, like 200x52", status: 64) }
    await benchFeatures(width: size[0], height: size[1])
case "projection" where arguments.count <= 3:
    await benchProjection(twinOf: arguments.count == 3 ? arguments[2] : nil)
case "journal" where arguments.count == 3:
    benchJournal(folder: arguments[2])
case "overlay" where arguments.count == 3:
    benchJournalOverlay(folder: arguments[2])
case "sync" where arguments.count == 3:
    await benchSync(folder: arguments[2])
case "edit" where arguments.count == 4:
    await benchEdit(root: arguments[2], portal: arguments[3])
default:
    fail("usage: mapbook-bench download URL FILE | mvt-decode FILE… | sample-build DIR | frame WxH | map PATH WxH [ZOOM] | pixels PATH WxH ZOOM LON,LAT | json FILE… | geography | names [VTPK] | features WxH | geodatabase FILE | projection [GDB] | journal DIR | overlay DIR | sync DIR | edit DATA_DIR PORTAL",
         status: 64)
}
