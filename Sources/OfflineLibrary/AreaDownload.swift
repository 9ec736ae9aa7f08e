import ArcGISPortal
import Foundation
import HTTP
import MapbookCore

/// Downloads one map area's packages into the library: each streams into a `.part` file with a
/// control file beside it, resumes from what is on disk, is verified, and only when every package
/// has passed are they moved into place and the area's record written.
struct AreaDownload: Sendable {
    let area: MapArea
    let library: OfflineLibrary
    let client: PortalClient
    let http: HTTPClient
    /// How often the control file is saved while bytes arrive.
    var controlInterval: Duration = .seconds(2)

    /// Runs the download; `report` gets progress (from the HTTP thread) and `started` the offset
    /// the first package resumes from. Throws `HTTPError` or `LibraryError`.
    func run(started: @Sendable (Int64) -> Void, report: @escaping @Sendable (DownloadProgress) -> Void) async throws -> DownloadRecord {
        let title = area.item.title
        guard area.status.isDownloadable, !area.packages.isEmpty else {
            throw LibraryError.notDownloadable(title: title, status: area.packages.isEmpty ? "missing" : area.status.name)
        }
        let id = area.item.id
        let knownSizes = area.packages.allSatisfy { ($0.size ?? 0) > 0 }
        let meter = ProgressMeter(total: knownSizes ? area.size : nil)
        var arrived: [(package: AreaPackage, part: String, verifiedBy: String, size: Int64)] = []

        for (index, package) in area.packages.enumerated() {
            let part = library.partPath(id, package.item.id), controlPath = library.controlPath(id, package.item.id)
            try AtomicFile.makeDirectory(library.partialDirectory(id))
            let resume = resumePoint(for: package, part: part, controlPath: controlPath)
            if index == 0 { started(resume?.offset ?? 0) }
            let control = PartialDownload(url: client.packageRequest(package.item.id).url.absoluteString,
                                          packageID: package.item.id, packageModified: package.item.modified.map(DownloadRecord.millis),
                                          expectedSize: package.size, validator: resume?.validator,
                                          bytesDone: resume?.offset ?? 0, savedAt: Date())
            try AtomicFile.writeJSON(control, to: controlPath)

            // Save the control file every few seconds while bytes arrive, and once more however this ends.
            let saver = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: controlInterval)
                    save(control, from: meter, to: controlPath)
                }
            }
            let checksums = StreamingChecksums(resumingFrom: part, count: resume?.offset ?? 0)
            let result: DownloadResult
            do {
                result = try await http.download(client.packageRequest(package.item.id), to: part, resumingFrom: resume,
                                                 written: checksums.consume) { progress in
                    report(meter.update(bytes: progress.bytes, validator: progress.validator))
                }
                saver.cancel()
            } catch {
                saver.cancel()
                save(control, from: meter, to: controlPath)
                throw error
            }

            let verifiedBy: String
            do {
                verifiedBy = try PackageVerifier.verify(path: part, name: package.item.title, expectedSize: package.size,
                                                        mustBeZip: PackageVerifier.mustBeZip(OfflineLibrary.fileName(for: package)),
                                                        streamed: checksums.result)
            } catch {
                // Bad bytes cannot be resumed: the next try starts clean.
                unlink(part)
                unlink(controlPath)
                throw error
            }
            meter.finishPackage(size: result.size)
            arrived.append((package, part, verifiedBy, result.size))
        }

        // Everything arrived whole: move the packages in, then record the area. Until the record is
        // written the area is not downloaded, so a crash in between leaves it "not downloaded".
        try AtomicFile.makeDirectory(library.packagesDirectory(id))
        var packages: [DownloadRecord.Package] = []
        for file in arrived {
            let name = OfflineLibrary.fileName(for: file.package)
            try AtomicFile.move(file.part, to: library.packagesDirectory(id) + "/" + name)
            packages.append(.init(id: file.package.item.id, title: file.package.item.title, type: file.package.item.type,
                                  fileName: name, size: file.size,
                                  modified: file.package.item.modified.map(DownloadRecord.millis), verifiedBy: file.verifiedBy))
        }
        let record = DownloadRecord(areaID: id, areaItem: area.item.arcGISJSON, packageItems: area.packages.map(\.item.arcGISJSON),
                                    packages: packages,
                                    // Whole seconds: the record reads back equal to what was written.
                                    downloadedAt: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try AtomicFile.writeJSON(record, to: library.manifestPath(id))
        library.discardStaleFiles(of: record)
        return record
    }

    /// Where to pick up a package: from its `.part` file when the control file says it is a download
    /// of this same package version and names the response it came from; otherwise from zero.
    private func resumePoint(for package: AreaPackage, part: String, controlPath: String) -> ResumePoint? {
        guard let control = (try? AtomicFile.readJSON(PartialDownload.self, from: controlPath)) ?? nil,
              control.packageID == package.item.id,
              control.packageModified == package.item.modified.map(DownloadRecord.millis),
              control.expectedSize == package.size,
              let validator = control.validator,
              let size = AtomicFile.size(of: part), size > 0 else {
            unlink(part)
            return nil
        }
        return ResumePoint(offset: size, validator: validator)
    }

    private func save(_ started: PartialDownload, from meter: ProgressMeter, to path: String) {
        let current = meter.current
        var control = started
        control.bytesDone = max(current.bytes, started.bytesDone)
        control.validator = current.validator ?? control.validator
        control.savedAt = Date()
        // A failed save only costs a resume; the download itself goes on.
        try? AtomicFile.writeJSON(control, to: path)
    }
}
