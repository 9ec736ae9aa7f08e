import ArcGISModel
import ArcGISPortal
import Foundation
import LibraryModel
import MapbookCore
@testable import OfflineLibrary
import PortalFixtures
import SamplePortal
import Synchronization
import Testing
import TestScheduling

/// `mapbook stage`'s service against the sample portal: what lands in the folder, what a second run
/// fetches and removes, and what it refuses.
@Suite("Staging a fleet mirror", .aheadOfQueuedTests)
struct MirrorStageTests {
    let folder = LibraryFixture.temporaryFolder() + "/mirror"

    func stage(_ fixture: LibraryFixture, areas: MirrorStage.Areas = .all, client: PortalClient? = nil, webMap: String = SampleFixture.webMapID,
               includePrivate: Bool = false) async throws -> MirrorIndex {
        try await MirrorStage(client: client ?? fixture.client, directory: folder, content: .webMap(ItemID(webMap)!, areas),
                              includePrivate: includePrivate, http: LibraryFixture.http()).run()
    }

    /// GETs of package bytes the portal answered, by package id.
    func packageFetches(_ portal: SamplePortal) -> [String: Int] {
        var counts: [String: Int] = [:]
        for request in portal.requests where request.path.hasSuffix("/data") && request.query["f"] == nil {
            counts[String(request.path.split(separator: "/")[4]), default: 0] += 1
        }
        return counts
    }

    @Test func everyFileIsListedWithItsDigestAndASecondRunFetchesOnlyWhatChanged() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop(); try? FileManager.default.removeItem(atPath: folder) }
        let index = try await stage(fixture)
        let staged = try #require(index.webMap(ItemID(SampleFixture.webMapID)!))
        #expect(staged.areas.count == 6 && index.portal == fixture.portal.baseURL.absoluteString && !index.includesPrivate)
        for file in staged.files {
            #expect(AtomicFile.size(of: folder + "/" + file.path) == file.size, "\(file.path)")
            #expect(try FileDigest.sha256(path: folder + "/" + file.path) == file.sha256, "\(file.path)")
        }
        // The packages are the portal's bytes, each checked by its own checksums.
        for (id, package) in SampleFixture.content.packages where index.package(ItemID(id)!) != nil {
            #expect(FileManager.default.contents(atPath: folder + "/" + MirrorLayout.data(of: ItemID(id)!)) == package.data)
            #expect(index.package(ItemID(id)!)?.verifiedBy == "zip CRC-32")
        }
        #expect(try String(contentsOfFile: folder + "/" + MirrorLayout.relatedItems(of: ItemID(SampleFixture.webMapID)!, relationship: "Map2Area"),
                           encoding: .utf8).contains("\"total\":6"))
        let first = packageFetches(fixture.portal)
        #expect(first.count == 7 && first.values.allSatisfy { $0 == 1 })

        // The portal updates Bangor's package: only it is fetched again.
        try fixture.portal.updateFaults { try $0.apply("update=\(SampleFixture.bangor.id)") }
        let again = try await stage(fixture)
        let second = packageFetches(fixture.portal)
        #expect(second[SampleFixture.bangor.packageID] == 2)
        #expect(second.filter { $0.key != SampleFixture.bangor.packageID }.values.allSatisfy { $0 == 1 })
        #expect(again.package(ItemID(SampleFixture.bangor.packageID)!)?.modified != index.package(ItemID(SampleFixture.bangor.packageID)!)?.modified)

        // Staged again with one area, the others' files are deleted, and only Acadia's remain listed.
        let acadia = try #require(SampleCatalog.areas.first { $0.title == "Acadia" })
        let narrowed = try await stage(fixture, areas: .chosen { areas in areas.filter { $0.item.id.rawValue == acadia.id } })
        let files = try #require(narrowed.webMap(ItemID(SampleFixture.webMapID)!)).files
        #expect(files.filter { $0.item != nil }.map(\.item) == [ItemID(acadia.packageID)!])
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + MirrorLayout.data(of: ItemID(SampleFixture.bangor.packageID)!)))
        let onDisk = try FileManager.default.subpathsOfDirectory(atPath: folder + "/sharing").map { "sharing/" + $0 }
            .filter { (try? FileManager.default.attributesOfItem(atPath: folder + "/" + $0)[.type] as? FileAttributeType) == .typeRegular }
        #expect(Set(onDisk) == Set(files.map(\.path)))
    }

    @Test func contentThatIsNotPublicIsStagedOnlyWhenAskedAndTheTokenNeverLands() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop(); try? FileManager.default.removeItem(atPath: folder) }
        let signedIn = PortalClient(portal: fixture.portal.baseURL, token: SampleCatalog.validToken, http: LibraryFixture.http())
        await #expect(throws: MirrorStageError.notPublic(title: "Explore Maine (staff)", access: "org")) {
            _ = try await stage(fixture, client: signedIn, webMap: SampleCatalog.protectedID)
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + MirrorLayout.index), "nothing is written for a refused web map")
        let index = try await stage(fixture, client: signedIn, webMap: SampleCatalog.protectedID, includePrivate: true)
        #expect(index.includesPrivate)
        let token = Data(SampleCatalog.validToken.utf8)
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            guard let bytes = FileManager.default.contents(atPath: folder + "/" + path) else { continue }
            #expect(bytes.range(of: token) == nil, "\(path) holds the token")
        }
    }

    @Test func aFolderStagedFromAnotherPortalIsRefused() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop(); try? FileManager.default.removeItem(atPath: folder) }
        try AtomicFile.writeJSON(MirrorIndex(portal: "https://www.arcgis.com"), to: folder + "/" + MirrorLayout.index)
        await #expect(throws: MirrorStageError.otherPortal(directory: folder, portal: "https://www.arcgis.com")) {
            _ = try await stage(fixture)
        }
    }

    @Test func oneStageAtATimePerFolder() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop(); try? FileManager.default.removeItem(atPath: folder) }
        let held = try await AreaLock.acquire(areaDirectory: folder, title: folder, wait: false)
        await #expect(throws: MirrorStageError.busy(directory: folder, pid: getpid())) { _ = try await stage(fixture) }
        withExtendedLifetime(held) {}
    }

    /// Links planted in the folder (or kept by `rsync -a` in a copy of it) never send a write, a
    /// delete or the lock elsewhere: a folder that is a link is refused in a sentence, a file that
    /// is one is replaced, and what the links point at is untouched.
    @Test func linksPlantedInTheFolderAreNeverFollowed() async throws {
        let fixture = try LibraryFixture()
        let victim = LibraryFixture.temporaryFolder() + "/victim"
        defer { fixture.portal.stop(); try? FileManager.default.removeItem(atPath: folder); try? FileManager.default.removeItem(atPath: victim) }
        func plantVictim() throws -> [String: Data] {
            try? FileManager.default.removeItem(atPath: victim)
            try FileManager.default.createDirectory(atPath: victim + "/sub", withIntermediateDirectories: true)
            let files = ["precious1.txt": Data("one".utf8), "precious2.txt": Data("two".utf8), "sub/precious3.txt": Data("three".utf8)]
            for (name, data) in files { try data.write(to: URL(fileURLWithPath: victim + "/" + name)) }
            return files
        }
        func victimIsWhole(_ files: [String: Data]) -> Bool {
            let now = (try? FileManager.default.subpathsOfDirectory(atPath: victim).filter { !$0.hasSuffix("sub") }) ?? []
            return Set(now) == Set(files.keys) && files.allSatisfy { FileManager.default.contents(atPath: victim + "/" + $0.key) == $0.value }
        }
        let areas = MirrorStage.Areas.chosen { areas in areas.filter { $0.item.id.rawValue == SampleFixture.bangor.id } }
        for planted in [".stage", "sharing", "sharing/rest/content", ".lock", "mirror.json"] {
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder + "/" + (planted as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let files = try plantVictim()
            let target = planted.hasPrefix(".lock") || planted == "mirror.json" ? victim + "/precious1.txt" : victim
            try FileManager.default.createSymbolicLink(atPath: folder + "/" + planted, withDestinationPath: target)
            var sentence: String?
            do { _ = try await stage(fixture, areas: areas) } catch { sentence = error.userSentence }
            #expect(victimIsWhole(files), "\(planted): the linked-to files are untouched")
            switch planted {
            case "mirror.json":
                // Not one mapbook wrote: refused, and the file it points at is kept.
                #expect(sentence == "\(folder)/mirror.json is not one mapbook stage wrote (a link, or other JSON); move it away to stage into this folder.")
            default:
                #expect(sentence == "\(folder)/\(planted) is a symbolic link, and mapbook does not write through links in its folders; remove it and try again.",
                        "\(planted): \(sentence ?? "staged")")
            }
        }
        // A link where a staged file goes is replaced by the file; a link left over is removed as a
        // link, never followed.
        try? FileManager.default.removeItem(atPath: folder)
        _ = try await stage(fixture, areas: areas)
        let files = try plantVictim()
        let item = folder + "/" + MirrorLayout.item(ItemID(SampleFixture.webMapID)!)
        try FileManager.default.removeItem(atPath: item)
        try FileManager.default.createSymbolicLink(atPath: item, withDestinationPath: victim + "/precious2.txt")
        try FileManager.default.createSymbolicLink(atPath: folder + "/sharing/rest/stray", withDestinationPath: victim)
        _ = try await stage(fixture, areas: areas)
        #expect(victimIsWhole(files))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: item)) == nil, "replaced by a file")
        #expect(!FileManager.default.fileExists(atPath: folder + "/sharing/rest/stray"))
    }

    @Test func namedAreasAreTheOnlyOnesAskedForTheirPackages() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop(); try? FileManager.default.removeItem(atPath: folder) }
        let index = try await stage(fixture, areas: .chosen { areas in areas.filter { $0.item.id.rawValue == SampleFixture.bangor.id } })
        #expect(index.webMap(ItemID(SampleFixture.webMapID)!)?.areas == [ItemID(SampleFixture.bangor.id)!])
        let asked = fixture.portal.requests.filter { $0.path.hasSuffix("/relatedItems") && $0.query["relationshipType"] == "Area2Package" }
        #expect(asked.map { $0.path.split(separator: "/")[4] } == [Substring(SampleFixture.bangor.id)])
    }

    @Test func anIndexWithoutMobileMapPackagesReads() throws {
        let json = #"{"format":1,"portal":"https://www.arcgis.com","includesPrivate":false,"webMaps":[]}"#
        let index = try JSONTreeDecoder.decode(MirrorIndex.self, from: Data(json.utf8))
        #expect(index.mobileMapPackages.isEmpty && index.portal == "https://www.arcgis.com")
    }

    @Test func onceThePortalIsFoundUnreachableTheMirrorIsAskedAtOnce() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop(); try? FileManager.default.removeItem(atPath: folder) }
        _ = try await stage(fixture, areas: .chosen { $0.filter { $0.item.id.rawValue == SampleFixture.bangor.id } })
        // Served as a plain bucket serves it: the files by their names, no rewrites.
        let bucket = try StaticFolderServer(folder: folder)
        defer { bucket.stop() }
        let gone = try SampleFixture.start()
        let portal = PortalClient(portal: gone.baseURL, http: LibraryFixture.http())
        gone.stop()
        let mirror = Mirror(url: bucket.server.baseURL, http: LibraryFixture.http())
        let asked = Mutex<[String]>([])
        for _ in 0..<3 {
            let item = try await Mirror.preferringPortal(portal, mirror: mirror) { client in
                asked.withLock { $0.append(client.portalURL.absoluteString) }
                return try await client.item(ItemID(SampleFixture.webMapID)!)
            }
            #expect(item.title == "Explore Maine")
        }
        // The first call tried the portal, then the mirror; the next two went to the mirror only.
        let portalAddress = gone.baseURL.absoluteString, mirrorAddress = bucket.server.baseURL.absoluteString
        #expect(asked.withLock { $0 }.map { $0.hasPrefix(portalAddress) ? "portal" : $0.hasPrefix(mirrorAddress) ? "mirror" : $0 }
                == ["portal", "mirror", "mirror", "mirror"])
    }

    /// Thumbnails the mirror holds come from it, checked by their SHA-256, even while the portal
    /// answers; one it holds damaged comes from the portal.
    @Test func thumbnailsComeFromTheMirrorThatHoldsThem() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.portal.stop(); try? FileManager.default.removeItem(atPath: folder) }
        _ = try await stage(fixture)
        let bucket = try StaticFolderServer(folder: folder)
        defer { bucket.stop() }
        let device = OfflineLibrary(root: fixture.root + "-device", portal: fixture.portal.baseURL, webMap: ItemID(SampleFixture.webMapID)!,
                                    mirror: Mirror(url: bucket.server.baseURL, http: LibraryFixture.http()))
        let catalog = try await device.sync(from: fixture.client)
        let items = [catalog.webMapItem] + catalog.areas.map(\.item)
        let damaged = try #require(items.last)
        let damagedPath = folder + "/" + MirrorLayout.info(of: damaged.id, named: damaged.thumbnail!)!
        var bytes = try #require(FileManager.default.contents(atPath: damagedPath))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damagedPath))
        let asked = fixture.portal.requests.count
        let thumbnails = await device.syncThumbnails(of: items, from: fixture.client)
        #expect(thumbnails.count == items.count)
        let fromPortal = fixture.portal.requests.dropFirst(asked).filter { $0.path.contains("/info/") }
        #expect(fromPortal.map { $0.path.split(separator: "/")[4] } == [Substring(damaged.id.rawValue)], "only the damaged one from the portal")
        #expect(bucket.requests.filter { $0.contains("/info/") }.count == items.count)

        // A mirror that refuses is asked once, not once a picture; the portal gives them all.
        let refusing = try StaticFolderServer(folder: folder, bearer: "not given")
        defer { refusing.stop() }
        let other = OfflineLibrary(root: fixture.root + "-other", portal: fixture.portal.baseURL, webMap: ItemID(SampleFixture.webMapID)!,
                                   mirror: Mirror(url: refusing.server.baseURL, http: LibraryFixture.http()))
        #expect(await other.syncThumbnails(of: items, from: fixture.client).count == items.count)
        #expect(refusing.requests == ["/mirror.json"], "\(refusing.requests)")
    }

    /// A device asks a mirror for the very names `stage` writes: each REST request the catalogue and
    /// packages need is one file, and what a mirror holds no file for is left as it is.
    @Test func theFilesADeviceAsksForAreTheOnesStageWrites() {
        let id = ItemID(SampleFixture.webMapID)!, items = ["content", "items", id.rawValue]
        func file(_ path: [String], _ query: [(String, String)] = [], json: Bool = true) -> String? {
            MirrorLayout.file(restPath: path, query: query, json: json).map { "sharing/rest/" + $0.joined(separator: "/") }
        }
        #expect(file(items) == MirrorLayout.item(id))
        #expect(file(items + ["data"]) == MirrorLayout.dataJSON(of: id))
        #expect(file(items + ["data"], json: false) == MirrorLayout.data(of: id))
        #expect(file(items + ["relatedItems"], [("relationshipType", "Map2Area"), ("direction", "forward")])
                == MirrorLayout.relatedItems(of: id, relationship: "Map2Area"))
        #expect(file(items + ["relatedItems"], [("relationshipType", "Area2Package")]) == MirrorLayout.relatedItems(of: id, relationship: "Area2Package"))
        #expect(file(items + ["info", "thumbnail", "t.png"], json: false) == MirrorLayout.info(of: id, named: "thumbnail/t.png"))
        #expect(file(items + ["info", "thumbnail", "t.png"]) == MirrorLayout.info(of: id, named: "thumbnail/t.png"), "as the client asks for it")
        for (path, query) in [(items + ["relatedItems"], [("relationshipType", "../x")]), (items + ["relatedItems"], [("relationshipType", "A"), ("direction", "up")]),
                              (["content", "items", "not-an-id"], []), (["search"], [("q", "x")]), (items, [("token", "x")])] {
            #expect(file(path, query) == nil, "\(path) \(query)")
        }
    }

    @Test func onlyPlainThumbnailNamesBecomePaths() {
        let id = ItemID(SampleFixture.webMapID)!
        #expect(MirrorLayout.info(of: id, named: "thumbnail/ago_downloaded.png") == "sharing/rest/content/items/\(id)/info/thumbnail/ago_downloaded.png")
        for hostile in ["../../../etc/passwd", "thumbnail/../x.png", ".hidden.png", "a//b.png", "thumb nail.png", "", "x/\u{0}.png"] {
            #expect(MirrorLayout.info(of: id, named: hostile) == nil, "\(hostile)")
        }
    }
}
