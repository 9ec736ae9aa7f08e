import ArcGISModel
import EventLoop
import Foundation
import HTTP
import MapbookCore
import Synchronization
import TileFormats
import LibraryModel

/// One item's data streamed into a `.part` file with a control file beside it, resumed from what is
/// on disk when the control file says it is this same version: what an area's packages and a portal's
/// mobile map packages are both fetched by.
///
/// The order of writes survives a crash at any point: `.part` is created, then its control file,
/// and the control file again with the response's validator as soon as the response headers arrive
/// (off the transfer thread), so a resume starts from zero only after a crash in the moment before
/// that save reached the disk; the control file is saved every few seconds while bytes arrive, and
/// once more however the transfer ends.
struct ResumableTransfer: Sendable {
    let http: HTTPClient
    let request: HTTPRequest
    let part: String
    let controlPath: String
    /// The version fetched: a control file naming another starts over.
    let itemID: ItemID
    let modified: Int64?
    let expectedSize: Int64?
    /// How often the control file is saved while bytes arrive.
    var controlInterval: Duration = .seconds(2)
    /// Also hash the whole file (SHA-256) as its bytes arrive.
    var hashing = false

    /// The control file on disk, when it is about this version.
    var control: PartialDownload? {
        guard let control = (try? AtomicFile.readJSON(PartialDownload.self, from: controlPath)) ?? nil,
              control.packageID == itemID, control.packageModified == modified, control.expectedSize == expectedSize else { return nil }
        return control
    }

    /// Fetches the rest of the file. `started` gets the offset it resumes from, `report` the bytes
    /// so far (from the HTTP thread; `meter` adds earlier files of the same download). Returns the
    /// response and the zip checksums computed as the bytes arrived, and with `hashing` the file's
    /// SHA-256 when the bytes could all be seen. Throws `HTTPError` or `LibraryError`.
    func run(meter: AreaByteCount, started: (Int64) -> Void,
             report: @escaping @Sendable (Int64) -> Void) async throws -> (result: DownloadResult, checksums: ZipStreamChecksums, sha256: String?) {
        try AtomicFile.makeDirectory((part as NSString).deletingLastPathComponent)
        let resume = resumePoint()
        // The .part exists before its control file: a control file without its .part means the
        // file was moved on, never that it was not started.
        let created = open(part, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard created >= 0 else { throw LibraryError.write(path: part, errno: errno) }
        close(created)
        started(resume?.offset ?? 0)
        let control = PartialDownload(url: request.url.absoluteString, packageID: itemID, packageModified: modified,
                                      expectedSize: expectedSize, validator: resume?.validator,
                                      bytesDone: resume?.offset ?? 0, savedAt: Date())
        try AtomicFile.writeJSON(control, to: controlPath)
        let saver = ControlSaver(control: control, path: controlPath, meter: meter)

        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: controlInterval)
                saver.save()
            }
        }
        let checksums = StreamingChecksums(resumingFrom: part, count: resume?.offset ?? 0, hashing: hashing)
        let result: DownloadResult
        do {
            result = try await http.download(request, to: part, resumingFrom: resume, written: checksums.consume,
                                             responded: saver.responded) { progress in
                report(meter.update(bytes: progress.bytes, validator: progress.validator))
            }
        } catch {
            ticker.cancel()
            await ticker.value
            saver.save()
            await saver.flush()
            throw error
        }
        // Ended before anything else touches the control file: no late save can bring it back.
        ticker.cancel()
        await ticker.value
        await saver.flush()
        return (result, checksums.result, checksums.sha256?.result(size: result.size))
    }

    /// Bad bytes cannot be resumed: the next try starts clean.
    func discard() {
        unlink(part)
        unlink(controlPath)
    }

    /// Where to pick up: from the `.part` file when the control file says it is this same version
    /// and names the response it came from; otherwise from zero.
    private func resumePoint() -> ResumePoint? {
        guard let control, let validator = control.validator, let size = AtomicFile.size(of: part), size > 0 else {
            unlink(part)
            return nil
        }
        return ResumePoint(offset: size, validator: validator)
    }
}

/// Writes a transfer's control file: when the response's validator is known, every few seconds, and
/// at the end. Saves run in order on a queue of their own — never on the transfer thread, which
/// every download in the process shares and which must not wait for an fsync — and the newest
/// validator and byte count always win.
private final class ControlSaver: Sendable {
    private let control: Mutex<PartialDownload>
    private let path: String
    private let meter: AreaByteCount
    private let queue = SerialQueue()

    init(control: PartialDownload, path: String, meter: AreaByteCount) {
        self.control = Mutex(control); self.path = path; self.meter = meter
    }

    /// The response about to be written names `validator`: saved as soon as can be, so a crash in
    /// the first seconds still resumes with `If-Range`.
    @Sendable func responded(_ validator: String?) {
        control.withLock { $0.validator = validator }
        queue.async { self.write() }
    }

    func save() {
        let current = meter.current
        control.withLock {
            $0.bytesDone = max(current.bytes, $0.bytesDone)
            $0.validator = current.validator ?? $0.validator
        }
        queue.async { self.write() }
    }

    /// Returns once every save asked for so far is on disk.
    func flush() async {
        await queue.flush()
    }

    private func write() {
        let snapshot = control.withLock { control -> PartialDownload in
            control.savedAt = Date()
            return control
        }
        // A failed save only costs a resume; the download itself goes on.
        try? AtomicFile.writeJSON(snapshot, to: path)
    }
}
