import ArcGISPortal
import Foundation
import HTTP
import MapbookCore
@testable import OfflineLibrary
import PortalFixtures
import Testing
import TestScheduling
import LibraryModel
import SharedTestData

/// Downloads into the library, clean and against every fault the sample portal injects. The rule
/// under test throughout: an area is recorded as downloaded only when its files verified.
@Suite(.aheadOfQueuedTests) struct DownloadQueueTests {
    /// The record is there, the file is the portal's bytes, and nothing partial is left.
    func expectDownloaded(_ fixture: LibraryFixture, _ events: [DownloadEvent]) throws {
        let record = try #require(events.record, "finished: \(events.failure?.sentence ?? "no event")")
        #expect(fixture.library.downloadRecord(fixture.portlandID) == record)
        let file = fixture.library.packagePath(fixture.portlandID, record.packages[0])
        #expect(FileManager.default.contents(atPath: file) == fixture.original)
        #expect(record.packages[0].verifiedBy == "zip CRC-32")
        #expect(fixture.library.partialDownloads().isEmpty)
        // No control file outlives its download (a late periodic save once recreated one).
        #expect(!FileManager.default.fileExists(atPath: fixture.library.areaDirectory(fixture.portlandID) + "/partial"))
        #expect(fixture.library.verify(record).isEmpty)
    }

    /// Failed: one sentence, no record, nothing in place of a package.
    func expectNotDownloaded(_ fixture: LibraryFixture, _ events: [DownloadEvent]) throws -> DownloadFailure {
        let failure = try #require(events.failure)
        #expect(events.record == nil)
        #expect(fixture.library.downloadRecord(fixture.portlandID) == nil)
        let packages = (try? FileManager.default.contentsOfDirectory(atPath: fixture.library.packagesDirectory(fixture.portlandID))) ?? []
        #expect(packages.isEmpty)
        #expect(!failure.sentence.isEmpty && !failure.sentence.contains("\n"))
        return failure
    }

    @Test func aCleanDownloadIsVerifiedAndRecorded() async throws {
        // Held part way by the portal until the queue has said so: seen moving, however loaded the machine.
        // (The stall watchdog waits longer than any pause of a loaded machine: held is not stalled.)
        let fixture = try LibraryFixture(faults: "hold=307200")
        defer { fixture.cleanUp() }
        let queue = DownloadQueue(library: fixture.library, client: fixture.client, http: LibraryFixture.http(stall: .seconds(300)))
        let id = fixture.portlandID
        await queue.enqueue(try await fixture.area(SampleFixture.portlandID))
        var events: [DownloadEvent] = []
        waiting: for await event in queue.events {
            events.append(event)
            switch event {
            case .progress(id, let progress) where progress.bytes == 307_200: break waiting
            case .finished, .failed, .cancelled, .paused: Issue.record("ended while held: \(events)"); return
            default: continue
            }
        }
        fixture.portal.releaseHeldDownloads()
        events += await LibraryFixture.events(of: queue, until: id)
        try expectDownloaded(fixture, events)
        #expect(events.first == .queued(id))
        let progress = events.compactMap { event -> DownloadProgress? in
            if case .progress(id, let progress) = event { progress } else { nil }
        }
        // In order, between the start and the end; the last one, full, just before `finished`.
        let started = try #require(events.firstIndex(of: .started(id, resumedFrom: 0)))
        #expect(events.firstIndex { if case .progress = $0 { true } else { false } }.map { $0 > started } == true)
        if case .progress(id, let last)? = events.dropLast().last {
            #expect(last.bytes == Int64(fixture.original.count) && last.total == last.bytes)
        } else {
            Issue.record("the last event before finished is not the full bar: \(events)")
        }
        #expect(progress.map(\.bytes) == progress.map(\.bytes).sorted(), "progress never goes back")
        #expect(progress.contains { $0.bytes == 307_200 && $0.total == Int64(fixture.original.count) }, "\(progress.map(\.bytes))")
    }

    @Test func serviceUnavailableWithRetryAfterIsWaitedOut() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let area = try await fixture.area(SampleFixture.portlandID)
        try fixture.portal.updateFaults { try $0.apply("status=503,retryAfter=1,count=2") }
        let queue = fixture.queue()
        await queue.enqueue(area)
        try expectDownloaded(fixture, await LibraryFixture.events(of: queue, until: fixture.portlandID))
    }

    @Test func aDroppedConnectionResumesWithRange() async throws {
        let fixture = try LibraryFixture(faults: "drop=400000,times=1")
        defer { fixture.cleanUp() }
        try expectDownloaded(fixture, try await fixture.downloadPortland(with: fixture.queue()))
        #expect(fixture.packageRanges.contains("bytes=400000-"))
    }

    @Test func aStallIsAbandonedAndResumed() async throws {
        let fixture = try LibraryFixture(faults: "stall=300000,stallSeconds=10,times=1")
        defer { fixture.cleanUp() }
        try expectDownloaded(fixture, try await fixture.downloadPortland(with: fixture.queue()))
        #expect(fixture.packageRanges.contains("bytes=300000-"))
    }

    @Test func aServerThatIgnoresRangeRestartsCleanly() async throws {
        let fixture = try LibraryFixture(faults: "ignoreRange,drop=400000,times=1")
        defer { fixture.cleanUp() }
        try expectDownloaded(fixture, try await fixture.downloadPortland(with: fixture.queue()))
        #expect(fixture.packageRanges.contains("bytes=400000-"), "it asked for the rest, got the whole file, and kept it whole")
    }

    @Test func aWrongContentLengthIsNeverTakenForTheFile() async throws {
        let fixture = try LibraryFixture(faults: "wrongLength")
        defer { fixture.cleanUp() }
        let events = try await fixture.downloadPortland(with: fixture.queue())
        // The body is whole, the header lied: the resume asks past the end, learns the true size, and
        // the file passes its checks. What matters is that nothing unverified is ever recorded.
        if events.record != nil { try expectDownloaded(fixture, events) } else { _ = try expectNotDownloaded(fixture, events) }
    }

    @Test func corruptBytesFailTheChecksumAndAreNotKept() async throws {
        let fixture = try LibraryFixture(faults: "corrupt")
        defer { fixture.cleanUp() }
        let failure = try expectNotDownloaded(fixture, try await fixture.downloadPortland(with: fixture.queue()))
        #expect(failure.sentence.contains("arrived damaged"))
        // Flipped bytes in the entries fail their CRC; in the central directory, its offsets no
        // longer hold together (entries overlap).
        #expect(failure.sentence.contains("CRC") || failure.sentence.contains("overlap"))
        #expect(fixture.library.partialDownloads().isEmpty, "damaged bytes are not kept to resume from")
        // Retry once the link is good: a clean download.
        try fixture.portal.updateFaults { $0 = .init() }
        try expectDownloaded(fixture, try await fixture.downloadPortland(with: fixture.queue()))
    }

    @Test func aLinkThatKeepsDroppingFailsThenRetryResumes() async throws {
        let fixture = try LibraryFixture(faults: "drop=250000")
        defer { fixture.cleanUp() }
        let failure = try expectNotDownloaded(fixture, try await fixture.downloadPortland(with: fixture.queue(retry: .none)))
        #expect(failure.sentence.contains("lost mid-transfer"))
        #expect(fixture.library.partialDownloads()[fixture.portlandID] == 250_000, "the bytes that arrived are kept")
        try fixture.portal.updateFaults { $0 = .init() }
        let events = try await fixture.downloadPortland(with: fixture.queue())
        try expectDownloaded(fixture, events)
        #expect(events.contains(.started(fixture.portlandID, resumedFrom: 250_000)))
        #expect(fixture.packageRanges.last == "bytes=250000-")
    }

    @Test func anUnreachablePortalSaysSo() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let area = try await fixture.area(SampleFixture.portlandID)
        try fixture.portal.setOutage(true)
        let queue = fixture.queue(retry: .none)
        await queue.enqueue(area)
        let failure = try expectNotDownloaded(fixture, await LibraryFixture.events(of: queue, until: fixture.portlandID))
        #expect(failure.isUnreachable)
    }

    @Test func cancelRemovesThePartialFiles() async throws {
        // Held part way (never released): the cancel comes before the end, however long the test's
        // task waits beside a loaded suite (throttled instead, the download once finished first).
        let fixture = try LibraryFixture(faults: "hold=307200")
        defer { fixture.cleanUp() }
        let queue = fixture.queue()
        await queue.enqueue(try await fixture.area(SampleFixture.portlandID))
        await LibraryFixture.progress(of: queue, fixture.portlandID, beyond: 100_000)
        await queue.cancel(fixture.portlandID)
        let events = await LibraryFixture.events(of: queue, until: fixture.portlandID)
        #expect(events.last == .cancelled(fixture.portlandID))
        #expect(fixture.library.downloadRecord(fixture.portlandID) == nil)
        #expect(fixture.library.partialDownloads().isEmpty)
    }

    @Test func pauseKeepsTheBytesAndAControlFileToResumeFrom() async throws {
        // 100 KB/s: the package takes about 20 s, so the pause comes while it is still arriving even
        // when the progress ticks come late (a fresh clone's first run, everything compiling and
        // testing at once, once saw the download end before the first tick reached the test).
        let fixture = try LibraryFixture(faults: "bandwidth=100k")
        defer { fixture.cleanUp() }
        let queue = fixture.queue()
        let area = try await fixture.area(SampleFixture.portlandID)
        await queue.enqueue(area)
        await LibraryFixture.progress(of: queue, fixture.portlandID, beyond: 200_000)
        await queue.pauseAll()
        let kept = try #require(fixture.library.partialDownloads()[fixture.portlandID])
        let control = try #require(try AtomicFile.readJSON(PartialDownload.self,
                                                           from: fixture.library.controlPath(fixture.portlandID, area.packages[0].item.id)))
        #expect(control.validator != nil)
        #expect(control.bytesDone <= kept)
        #expect(fixture.library.downloadRecord(fixture.portlandID) == nil)

        try fixture.portal.updateFaults { $0 = .init() }
        let again = try await fixture.downloadPortland(with: fixture.queue())
        try expectDownloaded(fixture, again)
        #expect(again.contains(.started(fixture.portlandID, resumedFrom: kept)))
        #expect(fixture.packageRanges.last == "bytes=\(kept)-")
    }

    @Test func aPackageChangedOnThePortalIsNotSplicedOntoOldBytes() async throws {
        let fixture = try LibraryFixture(faults: "drop=300000")
        defer { fixture.cleanUp() }
        _ = try await fixture.downloadPortland(with: fixture.queue(retry: .none))
        #expect(fixture.library.partialDownloads()[fixture.portlandID] == 300_000)
        // The package is republished: a new `modified` and new bytes. The old bytes must not be reused.
        try fixture.portal.updateFaults { $0 = .init(); try $0.apply("update=Greater Portland") }
        let events = try await fixture.downloadPortland(with: fixture.queue())
        let record = try #require(events.record)
        #expect(events.contains(.started(fixture.portlandID, resumedFrom: 0)))
        let file = fixture.library.packagePath(fixture.portlandID, record.packages[0])
        #expect(FileManager.default.contents(atPath: file) != fixture.original)
        #expect(fixture.library.verify(record).isEmpty)
    }

    @Test func anUpdateReplacesTheFilesOnlyOnceTheNewOnesVerified() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let first = try #require(try await fixture.downloadPortland(with: fixture.queue()).record)
        try fixture.portal.updateFaults { try $0.apply("update=Greater Portland,corrupt") }
        _ = try await fixture.downloadPortland(with: fixture.queue())
        // The damaged update was refused; the old download is still whole and still recorded.
        #expect(fixture.library.downloadRecord(fixture.portlandID) == first)
        #expect(fixture.library.verify(first).isEmpty)
        try fixture.portal.updateFaults { $0.corrupt = false }
        let updated = try #require(try await fixture.downloadPortland(with: fixture.queue()).record)
        #expect(updated.packages[0].modified != first.packages[0].modified)
        #expect(fixture.library.verify(updated).isEmpty)
    }

    @Test func removeTakesPackagesRecordAndPartialsButKeepsTheCatalog() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let record = try #require(try await fixture.downloadPortland(with: fixture.queue()).record)
        try fixture.library.removeDownload(fixture.portlandID, title: "Greater Portland")
        #expect(fixture.library.downloadRecord(fixture.portlandID) == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.library.packagePath(fixture.portlandID, record.packages[0])))
        #expect(!fixture.library.verify(record).isEmpty)
    }

    @Test func verifyFindsAFileDamagedOnDisk() async throws {
        let fixture = try LibraryFixture()
        defer { fixture.cleanUp() }
        let record = try #require(try await fixture.downloadPortland(with: fixture.queue()).record)
        let path = fixture.library.packagePath(fixture.portlandID, record.packages[0])
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 5000)
        handle.write(Data([0xFF, 0x00, 0xFF]))
        try handle.close()
        let problems = fixture.library.verify(record)
        #expect(problems.count == 1)
        #expect(problems.first?.userSentence.contains("CRC") == true)
    }

    @Test func aFullDiskIsAClearErrorAndNothingIsMarkedComplete() async throws {
        let mountPoint = LibraryFixture.temporaryFolder()
        defer { umountTmpfs(mountPoint) }
        guard mountTmpfs(mountPoint, size: "1m") else {
            print("skipped: a full disk is simulated with a 1 MiB tmpfs, which needs root (mount -t tmpfs)")
            return
        }
        let fixture = try LibraryFixture(root: mountPoint)
        defer { fixture.portal.stop() }
        let failure = try expectNotDownloaded(fixture, try await fixture.downloadPortland(with: fixture.queue()))
        // Refused before the first byte: the package cannot fit.
        #expect(failure.isDiskFull)
        #expect(failure.sentence.contains("more on this disk, but only"))
        #expect(fixture.library.partialDownloads().isEmpty)
    }
}
