import Foundation
import MapbookCore

/// Asynchronous HTTP over libcurl: requests into memory, and streaming downloads into files with
/// resume, progress and retries. Safe to share; every transfer runs on the shared engine thread.
public final class HTTPClient: Sendable {
    public static let version = "0.1.0"

    public let configuration: HTTPConfiguration

    public init(configuration: HTTPConfiguration = HTTPConfiguration()) {
        self.configuration = configuration
    }

    /// Sends `request` and returns the response body in memory. Transient failures are retried by the
    /// configured policy; an HTTP status of 400 or more is thrown as `HTTPError.status`.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let limit = request.deadline ?? configuration.deadline
        let deadline = limit.map { ContinuousClock.now + $0 }
        return try await withRetries(request.mayRetry ? configuration.retry : .none, deadline: deadline) { () throws(HTTPError) in
            let (outcome, host) = try await exchange(request) { hop throws(HTTPError) in
                try CurlTransfer(request: hop, configuration: configuration,
                                 sink: .memory(limit: min(request.maxBodyBytes ?? .max, configuration.maxBodyBytes)), rangeStart: nil, onProgress: nil,
                                 deadline: deadline.map { ($0, limit!) })
            }
            try Self.checkStatus(outcome, host: host)
            return HTTPResponse(status: outcome.status, headers: outcome.headers, body: outcome.body,
                                url: outcome.effectiveURL)
        }
    }

    /// Streams `request`'s body into the file at `path`, continuing from `resume` when given (with
    /// `Range` and `If-Range`). A server that ignores the range gets the file restarted from zero.
    /// Transient failures resume from the bytes already written. The file is fsync'd before returning.
    /// `written` sees the body once it is in the file, in order, piece by piece with each piece's
    /// offset there (0 again after a restart), on a background queue: for checks that would
    /// otherwise read the whole file again at the end. `responded` is told the validator (ETag, else
    /// Last-Modified) of the response whose body is about to be written, before any of it is: what a
    /// resume after a crash needs, so it can be saved at once.
    public func download(_ request: HTTPRequest, to path: String, resumingFrom resume: ResumePoint? = nil,
                         written: (@Sendable (UnsafeRawBufferPointer, Int64) -> Void)? = nil,
                         responded: (@Sendable (String?) -> Void)? = nil,
                         progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(HTTPError) -> DownloadResult {
        // Read as well as write: what was written is read back for `written`.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.fileError(path: path, errno: errno) }
        defer { close(fd) }

        var point = resume ?? ResumePoint(offset: 0, validator: nil)
        var restarted = false
        let result: DownloadResult = try await withRetries(configuration.downloadRetry, progress: { point.offset }) { () throws(HTTPError) in
            // Continue from what is really on disk, never past it.
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw Self.fileError(path: path, errno: errno) }
            let isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
            point.offset = isRegularFile ? min(max(point.offset, 0), Int64(info.st_size)) : 0
            if isRegularFile, ftruncate(fd, off_t(point.offset)) != 0 { throw Self.fileError(path: path, errno: errno) }

            var attempt = request
            if point.offset > 0, let validator = point.validator { attempt.headers.append(("If-Range", validator)) }
            let outcome: CurlTransfer.Outcome, host: String
            var writer: CurlTransfer?
            do throws(HTTPError) {
                (outcome, host) = try await exchange(attempt) { hop throws(HTTPError) in
                    let transfer = try CurlTransfer(request: hop, configuration: configuration,
                                                    sink: .file(descriptor: fd, path: path, offset: point.offset),
                                                    rangeStart: point.offset, onProgress: progress, onWritten: written,
                                                    onResponse: responded)
                    writer = transfer
                    return transfer
                }
            } catch {
                // Keep what arrived: the next attempt asks only for the rest, of the same version.
                point.offset = Int64(lseek(fd, 0, SEEK_END))
                point.validator = writer?.bodyValidator ?? point.validator
                throw error
            }
            if outcome.status == 416, ContentRange.unsatisfiedTotal(outcome.headers["content-range"]) == point.offset {
                // Asked for the rest of a file that is already whole.
                return DownloadResult(size: point.offset, etag: outcome.headers["etag"],
                                      lastModified: outcome.headers["last-modified"],
                                      restartedFromZero: restarted, resumedFrom: point.offset)
            }
            try Self.checkStatus(outcome, host: host)
            if outcome.fileStart == 0, point.offset > 0 { restarted = true }
            point.validator = outcome.headers["etag"] ?? outcome.headers["last-modified"] ?? point.validator
            return DownloadResult(size: outcome.fileEnd, etag: outcome.headers["etag"],
                                  lastModified: outcome.headers["last-modified"],
                                  restartedFromZero: restarted, resumedFrom: outcome.fileStart)
        }
        guard fsync(fd) == 0 else { throw Self.fileError(path: path, errno: errno) }
        return result
    }

    // MARK: -

    /// Sends `request` and, while the answer is a redirect, the request it leads to (see `Redirect`),
    /// each hop on a transfer `start` makes. Returns the final answer and the host that gave it.
    private func exchange(_ request: HTTPRequest, start: (HTTPRequest) throws(HTTPError) -> CurlTransfer)
        async throws(HTTPError) -> (CurlTransfer.Outcome, host: String) {
        if let name = request.unsafeHeader { throw .invalidHeader(name) }
        var hop = request
        for _ in 0...max(configuration.maxRedirects, 0) {
            let transfer = try start(hop)
            let outcome = try await Self.run(transfer).get()
            guard let next = try Redirect.next(after: hop, status: outcome.status, location: outcome.headers["location"]) else {
                return (outcome, transfer.host)
            }
            hop = next
        }
        throw .tooManyRedirects(request.url.host ?? "")
    }

    private static func run(_ transfer: CurlTransfer) async -> Result<CurlTransfer.Outcome, HTTPError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.install(continuation)
                CurlEngine.shared.start(transfer)
            }
        } onCancel: {
            CurlEngine.shared.cancel(transfer)
        }
    }

    private static func checkStatus(_ outcome: CurlTransfer.Outcome, host: String) throws(HTTPError) {
        guard outcome.status < 400 else {
            throw .status(outcome.status, host: host,
                          retryAfter: RetryPolicy.parseRetryAfter(outcome.headers["retry-after"]))
        }
    }

    private static func fileError(path: String, errno code: Int32) -> HTTPError {
        code == ENOSPC || code == EDQUOT ? .diskFull(path: path) : .diskWrite(path: path, errno: code)
    }

    /// Runs `attempt` until it succeeds, fails for good, or `policy` gives up. `progress` (for
    /// downloads) tells how far the file has come: an attempt that moved it on starts the policy's
    /// count and clock again.
    private func withRetries<T>(_ policy: RetryPolicy, progress: () -> Int64 = { 0 }, deadline: ContinuousClock.Instant? = nil,
                                _ attempt: () async throws(HTTPError) -> T) async throws(HTTPError) -> T {
        let clock = ContinuousClock()
        var since = clock.now, retry = 0, attempts = 0, reached = progress()
        while true {
            if Task.isCancelled { throw .cancelled }
            do {
                return try await attempt()
            } catch {
                attempts += 1
                if progress() > reached, attempts < RetryPolicy.maxAttemptsWithProgress {
                    reached = progress()
                    since = clock.now
                    retry = 0
                }
                retry += 1
                guard let wait = policy.delay(beforeRetry: retry, after: error, elapsed: clock.now - since),
                      deadline.map({ clock.now + wait < $0 }) ?? true else { throw error }
                do { try await Task.sleep(for: wait) } catch { throw .cancelled }
            }
        }
    }
}
