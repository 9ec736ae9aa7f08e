// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "mapbook",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "mapbook", targets: ["mapbook"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // System libraries, each with a tiny shim header for what Swift cannot call directly.
        // libcurl, libcrypto, libsecret and PROJ are loaded on first use (CLibraryLoader, see their
        // shims), so they are not linked: no pkg-config.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CCurses", pkgConfig: "ncursesw",
                       providers: [.apt(["libncurses-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CStb", pkgConfig: "stb",
                       providers: [.apt(["libstb-dev"])]),
        .systemLibrary(name: "CChafa", pkgConfig: "chafa",
                       providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]),
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSecret", providers: [.apt(["libsecret-1-0"])]),
        .target(name: "CLibraryLoader"),
        // PROJ: every coordinate system and datum transformation but Web Mercator's own.
        .systemLibrary(name: "CProj", providers: [.apt(["libproj-dev"])]),
        // Cairo draws pixel maps, loaded on first use.
        .systemLibrary(name: "CCairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),

        // What everything shares: the JSON tree and parser, formatting, untrusted-text sanitizing, files on disk.
        .target(name: "MapbookCore"),
        // Geometry and projection: extents, spatial references, Web Mercator, PROJ's transformations, GeoJSON, great-circle distance.
        .target(name: "Geometry", dependencies: ["MapbookCore", "CProj", "CLibraryLoader"]),
        // The ArcGIS model as values: items, web maps, map areas, feature layers, renderers, popups.
        .target(name: "ArcGISModel", dependencies: ["MapbookCore", "Geometry"]),
        // The user's files: settings, the web maps opened, the views remembered.
        .target(name: "UserFiles", dependencies: ["MapbookCore", "Geometry", "ArcGISModel", "Location"]),
        // What the offline library holds, as values: catalogues, download records, progress and events, its errors.
        .target(name: "LibraryModel", dependencies: ["MapbookCore", "ArcGISModel"]),
        // Places to search offline: one PlaceIndex (bundled and from downloaded packages) and the gazetteer.
        .target(name: "Places", dependencies: ["MapbookCore", "Geometry", "TileFormats", "ArcGISModel"]),
        // The terminal as a value: cells, frames, their diff, display widths, the xterm palette.
        .target(name: "TerminalCanvas"),
        // netlink's route events, whose socket address struct Swift does not import.
        .target(name: "CNetlink"),
        // ioctl(TIOCGWINSZ), which Swift cannot call (variadic): the terminal's size, without curses.
        .target(name: "CTerminal"),
        .target(name: "CChecksum"),
        .target(name: "HTTP", dependencies: ["MapbookCore", "EventLoop", "CCurl", "CLibraryLoader"]),
        .target(name: "ArcGISPortal", dependencies: ["ArcGISModel", "Geometry", "MapbookCore", "HTTP", "CCrypto", "CLibraryLoader"]),
        .target(name: "LoopbackHTTP"),
        .target(name: "TileFormats", dependencies: ["Geometry", "MapbookCore", "CZlib", "CStb", "CChecksum"]),
        // Mobile geodatabases (.geodatabase, SQLite): layers, rows and Esri's shape blobs, read-only.
        .target(name: "Geodatabase", dependencies: ["ArcGISModel", "Geometry", "MapbookCore", "CSQLite"]),
        // The bundled geography (assets/ATTRIBUTION.md says where it comes from).
        .target(name: "MapbookAssets", dependencies: ["Geometry", "Places", "MapbookCore"], path: "assets",
                exclude: ["ATTRIBUTION.md"], sources: ["MapbookAssets.swift", "CompactFeatures.swift"], resources: [.copy("maine"), .copy("world"), .copy("usa")]),
        .target(name: "OfflineLibrary", dependencies: ["Location", "ArcGISModel", "LibraryModel", "Geometry", "UserFiles", "Places", "MapbookCore", "EventLoop", "HTTP", "ArcGISPortal", "TileFormats", "Geodatabase", "MobilePackages", "CCrypto", "CLibraryLoader"]),
        // Editing: an area's edits in a crash-safe journal, and the one rule for a field's value.
        .target(name: "Editing", dependencies: ["ArcGISModel", "Geometry", "MapbookCore", "CSQLite"]),
        // Signing in: the credentials kept per portal, and the sessions that renew their tokens.
        .target(name: "SignIn", dependencies: ["ArcGISModel", "MapbookCore", "HTTP", "ArcGISPortal", "CSecret", "CLibraryLoader"]),
        .target(name: "MapRender", dependencies: ["ArcGISModel", "Geometry", "MapbookCore", "TileFormats", "TerminalCanvas", "CChafa"]),
        // Maps in true pixels for terminals that show pictures: the Cairo surface, the pixel view, kitty/sixel/iTerm2 encoding.
        .target(name: "PixelRender", dependencies: ["MapRender", "MapSources", "Geometry", "MapbookCore", "TileFormats", "TerminalCanvas", "CCairo",
                                                    "CLibraryLoader"]),
        // Mobile map packages (.mmpk, zipped or unpacked): their maps and the files their layers name.
        .target(name: "MobilePackages", dependencies: ["ArcGISModel", "Geometry", "MapbookCore", "TileFormats"]),
        .target(name: "MapSources", dependencies: ["ArcGISModel", "Geometry", "MapbookCore", "HTTP", "TileFormats", "Geodatabase", "MobilePackages", "MapRender", "TerminalCanvas"]),
        // Where the device is: gpsd's JSON reports watched on a thread of their own, or a position set in the config.
        .target(name: "Location", dependencies: ["MapbookCore", "Geometry"]),
        // The UI actor and its one thread, which sleeps in poll() when nothing happens.
        .target(name: "EventLoop"),
        // Whether the portal can be reached: netlink routes (watched by the event loop) and probes.
        .target(name: "Connectivity", dependencies: ["MapbookCore", "EventLoop", "CNetlink"]),
        // The app's logic as values: state, events, the pure update, effects, key map, layout.
        .target(name: "AppModel", dependencies: ["ArcGISModel", "Geometry", "UserFiles", "LibraryModel", "MapbookCore", "TileFormats", "MapRender",
                                              "TerminalCanvas", "Location"]),
        // What the browser and the command line both ask of the world: place finding, route planning, the
        // operational layers' loaders, side-loaded maps, the package shelf. No model, no runtime.
        .target(name: "MapbookServices", dependencies: ["ArcGISModel", "Geometry", "MapbookCore", "HTTP", "ArcGISPortal", "OfflineLibrary", "Places", "MapbookAssets",
                                                     "MapRender", "MapSources", "MobilePackages", "Geodatabase", "TileFormats", "Editing"]),
        // Performs the model's effects with the services, and feeds the results back as events.
        .target(name: "AppRuntime", dependencies: ["PixelRender", "TerminalCanvas", "Location", "LibraryModel", "ArcGISModel", "Geometry", "Places", "UserFiles", "AppModel", "EventLoop", "Connectivity", "Geodatabase", "MapbookCore", "HTTP", "ArcGISPortal",
                                                "TileFormats", "MapRender", "MapSources", "MobilePackages", "OfflineLibrary", "MapbookAssets", "MapbookServices", "Editing"]),
        // The line-oriented front end (`--plain`): the same program, for screen readers and logs.
        .target(name: "PlainUI", dependencies: ["Location", "Geometry", "AppModel", "AppRuntime", "EventLoop", "MapbookCore", "MapRender"]),
        // The renderer: the model's state to a frame, pure; it reaches neither the network nor the library.
        .target(name: "TerminalRender", dependencies: ["Location", "Geometry", "UserFiles", "AppModel", "MapRender", "TerminalCanvas", "MapbookCore", "MapbookAssets"]),
        .target(name: "TerminalUI", dependencies: ["PixelRender", "TileFormats", "TerminalRender", "Geometry", "UserFiles", "AppModel", "AppRuntime", "EventLoop", "MapRender", "TerminalCanvas", "MapbookCore",
                                                   "MapbookAssets", "CCurses", "CTerminal"]),
        .target(name: "SamplePortal", dependencies: ["ArcGISModel", "Geometry", "MapbookCore", "LoopbackHTTP", "TileFormats", "MapbookAssets", "CCrypto", "CLibraryLoader", "Geodatabase", "Places"]),
        .executableTarget(name: "mapbook", dependencies: ["LibraryModel", "MapbookAssets", "ArcGISModel", "Geometry", "Places", "UserFiles", 
            "MapbookCore", "HTTP", "ArcGISPortal", "TileFormats", "SamplePortal", "AppModel", "AppRuntime", "EventLoop", "MapRender",
            "TerminalCanvas", "TerminalRender", "TerminalUI", "PlainUI", "PixelRender", "OfflineLibrary", "MapSources", "Geodatabase", "MobilePackages", "CTerminal", "SignIn", "LoopbackHTTP", "MapbookServices", "Editing", "Location",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Benchmark driver for the scripts in scripts/: one module at a time, no UI.
        .executableTarget(name: "mapbook-bench", dependencies: ["ArcGISModel", "Geometry", "Places", "HTTP", "TileFormats", "SamplePortal", "ArcGISPortal", "AppModel",
                                                               "AppRuntime", "EventLoop",
                                                               "MapRender", "TerminalCanvas", "MapbookCore", "TerminalRender", "TerminalUI", "OfflineLibrary",
                                                               "MapSources", "MapbookAssets", "Geodatabase", "MapbookServices", "Editing", "PixelRender"]),

        .testTarget(name: "MapbookCoreTests", dependencies: ["MapbookCore"]),
        .testTarget(name: "ArcGISModelTests", dependencies: ["ArcGISModel", "Geometry", "MapbookCore", "SharedTestData"]),
        .testTarget(name: "UserFilesTests", dependencies: ["UserFiles", "ArcGISModel", "Geometry", "MapbookCore", "Location"]),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop"]),
        .testTarget(name: "ConnectivityTests", dependencies: ["Connectivity", "EventLoop", "MapbookCore", "TestScheduling"]),
        .testTarget(name: "TerminalCanvasTests", dependencies: ["TerminalCanvas"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "LoopbackHTTP", "TestScheduling"]),
        .testTarget(name: "ArcGISPortalTests", dependencies: ["HTTP", "LoopbackHTTP", "MapbookCore", "SamplePortal", "ArcGISModel", "Geometry", "ArcGISPortal", "PortalFixtures", "TestScheduling"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "SamplePortalTests", dependencies: ["MapbookCore", "ArcGISModel", "Geometry", "SamplePortal", "PortalFixtures", "ArcGISPortal", "HTTP", "TileFormats",
                                                               "MapbookAssets", "SharedTestData"]),
        .testTarget(name: "CLITests", dependencies: ["GPSFixtures", "MapbookCore", "SamplePortal", "ArcGISModel", "Geometry", "Geodatabase", "mapbook", "PortalFixtures", "TileFormats", "SharedTestData", "LoopbackHTTP", "Editing", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "SignInTests", dependencies: ["ArcGISModel", "SignIn", "ArcGISPortal", "HTTP", "PortalFixtures", "SamplePortal", "MapbookCore", "LoopbackHTTP"]),
        .testTarget(name: "EditingTests", dependencies: ["Editing", "ArcGISModel", "Geometry", "Geodatabase", "MapbookCore", "CSQLite", "SharedTestData"]),
        .testTarget(name: "GeodatabaseTests", dependencies: ["Geodatabase", "CSQLite", "ArcGISModel", "Geometry", "MapbookCore", "SharedTestData"]),
        .testTarget(name: "LocationTests", dependencies: ["Location", "Geometry", "MapbookCore"]),
        .testTarget(name: "TileFormatsTests", dependencies: ["MapbookCore", "Geometry", "TileFormats", "SharedTestData"]),
        .testTarget(name: "AppRuntimeTests", dependencies: ["Location", "ArcGISModel", "Geometry", "Places", "UserFiles", "AppRuntime", "AppModel", "ArcGISPortal", "EventLoop", "MapbookCore", "OfflineLibrary", "HTTP", "LibraryModel",
                                                               "MapRender", "MapSources", "PortalFixtures", "SamplePortal", "LoopbackHTTP", "TileFormats", "MapbookServices", "TestScheduling"]),
        .testTarget(name: "AppModelTests", dependencies: ["Location", "AppRuntime", "EventLoop", "LibraryModel", "OfflineLibrary", "TerminalCanvas", "ArcGISModel", "Geometry", "Places", "UserFiles", "AppModel", "ArcGISPortal", "MapbookCore", "PortalFixtures", "SamplePortal", "HTTP",
                                                          "MapSources", "MapRender", "TileFormats", "MapbookAssets", "PlainUI", "TestScheduling"]),
        .testTarget(name: "TerminalUITests", dependencies: ["GPSFixtures", "Location", "AppRuntime", "EventLoop", "LibraryModel", "UserFiles", "ArcGISModel", "Geometry", "TerminalRender", "TerminalUI", "AppModel", "MapRender", "TerminalCanvas", "MapbookCore", "MapSources",
                                                            "ArcGISPortal", "PortalFixtures", "LoopbackHTTP", "CCurses", "OfflineLibrary",
                                                            "SamplePortal", "SnapshotSupport", "HTTP", "SharedTestData", "TileFormats", "PixelRender", "TestScheduling"],
                    exclude: ["Snapshots"]),
        .testTarget(name: "OfflineLibraryTests", dependencies: ["Location", "LibraryModel", "UserFiles", "ArcGISModel", "Geometry", "Places", "OfflineLibrary", "ArcGISPortal", "HTTP", "MapbookCore", "LoopbackHTTP",
                                                                "PortalFixtures", "SamplePortal", "TileFormats", "SharedTestData", "MobilePackages", "TestScheduling"]),
        .testTarget(name: "MapRenderTests", dependencies: ["ArcGISPortal", "Geodatabase", "ArcGISModel", "Geometry", "MapRender", "TerminalCanvas", "MapbookCore", "TileFormats", "MapSources", "SharedTestData",
                                                           "PortalFixtures", "HTTP", "SnapshotSupport", "SamplePortal", "MobilePackages"],
                    exclude: ["Snapshots"]),
        .testTarget(name: "PixelRenderTests", dependencies: ["PixelRender", "MapRender", "MapSources", "Geometry", "TileFormats", "TerminalCanvas",
                                                           "SharedTestData"]),
        .testTarget(name: "SystemLibraryTests", dependencies: ["CCurl", "CCurses", "CZlib", "CLibraryLoader"]),
        // Test support: where ../shared/data is, and the message for tests skipped without it.
        .target(name: "SharedTestData", dependencies: ["TileFormats"], path: "Tests/SharedTestData"),
        // Test support: a trait for tests that wait with a deadline, run ahead of the tests queued.
        .target(name: "TestScheduling", path: "Tests/TestScheduling"),
        // Test support: text snapshots compared with files, recorded with MAPBOOK_RECORD_SNAPSHOTS=1.
        .target(name: "SnapshotSupport", path: "Tests/SnapshotSupport"),
        // Test support: gpsd fed by gpsfake on a private port, replaying NMEA written by the tests.
        .target(name: "GPSFixtures", path: "Tests/GPSFixtures"),
        // Test support: the sample portal, its content built once per test process.
        .target(name: "PortalFixtures", dependencies: ["ArcGISModel", "SamplePortal", "OfflineLibrary", "MapbookCore", "AppModel", "AppRuntime",
                                                    "EventLoop", "ArcGISPortal", "MapSources", "HTTP", "LoopbackHTTP"], path: "Tests/PortalFixtures"),
    ]
)
