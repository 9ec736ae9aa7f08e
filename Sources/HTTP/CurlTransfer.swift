import CCurl
import Foundation
import Synchronization
import MapbookCore

/// One request on a libcurl easy handle. Created on the caller's task, then owned by the engine
/// thread until it finishes; only `cancel()` crosses threads, through a lock.
///
/// Safety of `@unchecked Sendable`: libcurl's C callbacks find the transfer through a raw pointer;
/// its response state is touched on the engine thread only, and what crosses threads (cancelling,
/// the waiting continuation) goes through a mutex.
final class CurlTransfer: @unchecked Sendable {
    enum Sink {
        /// Keep the body in memory, up to `limit` bytes.
        case memory(limit: Int)
        /// Write the body into an open file starting at `offset` (a resumed download).
        case file(descriptor: Int32, path: String, offset: Int64)
    }

    struct Outcome: Sendable {
        var status: Int
        var headers: HTTPHeaders
        /// The body for memory sinks; for file sinks, the start of an error body (non-2xx).
        var body: Data
        var effectiveURL: URL
        /// For file sinks: where the body was written from (0 after a restart) and how far it went.
        var fileStart: Int64
        var fileEnd: Int64
    }

    let easy: UnsafeMutableRawPointer
    let host: String
    private let url: URL
    private var sink: Sink
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let onProgress: (@Sendable (TransferProgress) -> Void)?
    private let onWritten: (@Sendable (UnsafeRawBufferPointer, Int64) -> Void)?
    private let onResponse: (@Sendable (String?) -> Void)?

    // Response state, touched only on the engine thread.
    private var status = 0
    private var headers = HTTPHeaders()
    private var body = Data()
    private var sinkPrepared = false
    private var fileStart: Int64 = 0
    /// How far the file is written; the body bytes past it wait in `tail`.
    private var filePosition: Int64 = 0
    /// The body bytes short of the next block boundary in the file, held back. libcurl hands the body
    /// over in 16 KiB pieces, and once one falls short every write would end mid-block, which makes
    /// the file system zero the rest of that block first: a fifth of a download's time.
    private var tail: UnsafeMutableRawBufferPointer?
    private var tailCount = 0
    private static let blockSize = 4096
    private var writeback: DownloadWriteback?
    private var expectedTotal: Int64?
    private var failure: HTTPError?
    private var lastProgressReport: UInt64 = 0
    /// The file position last reported: bytes written since are reported even when no more come.
    private var reportedPosition: Int64 = 0
    /// When a body byte last arrived (or the transfer started): the stall watchdog's reference.
    private var lastActivity = DispatchTime.now().uptimeNanoseconds
    private let stallTimeout: UInt64
    /// When the whole request must be done (uptime nanoseconds), and the limit it came from.
    private let deadline: (at: UInt64, limit: Duration)?
    /// The request's minimum rate, and the window being measured: when it began and the body
    /// bytes received by then.
    private let minimumRate: (bytesPerSecond: Int, window: Duration)?
    private var rateWindow: (start: UInt64, received: Int64) = (DispatchTime.now().uptimeNanoseconds, 0)
    private var received: Int64 = 0

    /// What crosses threads: whether the caller cancelled, and the task waiting for the outcome.
    private let control = Mutex<(cancelled: Bool, waiting: CheckedContinuation<Result<Outcome, HTTPError>, Never>?)>((false, nil))

    /// Error bodies of failed downloads are kept only this far, for diagnostics.
    private static let errorBodyLimit = 64 << 10

    init(request: HTTPRequest, configuration: HTTPConfiguration, sink: Sink,
         rangeStart: Int64?, onProgress: (@Sendable (TransferProgress) -> Void)?,
         onWritten: (@Sendable (UnsafeRawBufferPointer, Int64) -> Void)? = nil,
         onResponse: (@Sendable (String?) -> Void)? = nil,
         deadline: (ContinuousClock.Instant, Duration)? = nil) throws(HTTPError) {
        guard CurlGlobal.isAvailable else {
            throw .transport(code: -1, message: "libcurl (Debian's libcurl4) could not be loaded, so nothing can be fetched")
        }
        guard let easy = mb_curl_easy_init() else { throw .transport(code: -1, message: "libcurl could not start") }
        self.easy = easy
        self.url = request.url
        self.host = request.url.host ?? request.url.absoluteString
        self.sink = sink
        self.onProgress = onProgress
        self.onWritten = onWritten
        self.onResponse = onResponse
        self.stallTimeout = UInt64(max(configuration.stallTimeout.milliseconds, 1)) * 1_000_000
        self.deadline = deadline.map { instant, limit in
            let left = max((instant - .now).milliseconds, 0)
            return (DispatchTime.now().uptimeNanoseconds + UInt64(left) * 1_000_000, limit)
        }
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        if case .file(_, _, let offset) = sink { fileStart = offset; filePosition = offset }
        minimumRate = request.minimumRate
        configure(request: request, configuration: configuration, rangeStart: rangeStart)
    }

    deinit {
        tail?.deallocate()
        mb_curl_easy_cleanup(easy)
        mb_curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    private func configure(request: HTTPRequest, configuration: HTTPConfiguration, rangeStart: Int64?) {
        setString(CURLOPT_URL, request.url.absoluteString)
        setString(CURLOPT_USERAGENT, configuration.userAgent)
        // Only the web's protocols. Redirects are not followed here but by HTTPClient (see Redirect):
        // libcurl would hand the token header to any host a redirect names.
        setString(CURLOPT_PROTOCOLS_STR, "http,https")
        mb_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        mb_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.milliseconds)
        mb_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        mb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
        mb_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
        mb_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        mb_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        switch sink {
        case .memory:
            // Offer gzip/deflate for API responses; downloads stay identity so byte ranges mean file bytes.
            setString(CURLOPT_ACCEPT_ENCODING, "")
        case .file:
            // Downloads read the socket in 512 KiB (libcurl's default is 16 KiB): far fewer wake-ups
            // and system calls; the transfer thread is what limits a fast download.
            mb_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 512 << 10)
        }
        if let rangeStart, rangeStart > 0 { setString(CURLOPT_RANGE, "\(rangeStart)-") }
        switch request.method {
        case "HEAD": mb_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        case "POST":
            let body = request.body ?? Data()
            mb_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, body.count)
            _ = body.withUnsafeBytes { raw in
                mb_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress))
            }
        default: break
        }
        for (name, value) in request.headers {
            headerList = mb_curl_slist_append(headerList, "\(name): \(value)")
        }
        if headerList != nil { mb_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList) }

        let me = Unmanaged.passUnretained(self).toOpaque()
        mb_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, curlWriteBody)
        mb_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        mb_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader)
        mb_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        mb_easy_setopt_xferinfo_function(easy, curlTransferInfo)
        mb_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, me)
        mb_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
    }

    private func setString(_ option: CURLoption, _ value: String) {
        _ = value.withCString { mb_easy_setopt_string(easy, option, $0) }
    }

    // MARK: Cross-thread control

    func install(_ continuation: CheckedContinuation<Result<Outcome, HTTPError>, Never>) {
        control.withLock { $0.waiting = continuation }
    }

    func cancel() { control.withLock { $0.cancelled = true } }

    var cancelled: Bool { control.withLock { $0.cancelled } }

    /// Resumes the waiting task exactly once.
    func complete(_ result: Result<Outcome, HTTPError>) {
        let waiting = control.withLock { control -> CheckedContinuation<Result<Outcome, HTTPError>, Never>? in
            defer { control.waiting = nil }
            return control.waiting
        }
        waiting?.resume(returning: result)
    }

    // MARK: Engine-thread callbacks

    fileprivate func receiveHeader(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            // A new response (after a redirect or a 100 Continue) starts over.
            status = Int(trimmed.split(separator: " ").dropFirst().first ?? "") ?? 0
            headers = HTTPHeaders()
        } else if let colon = trimmed.firstIndex(of: ":") {
            headers[String(trimmed[..<colon])] = trimmed[trimmed.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
    }

    /// Returns the bytes consumed; anything less makes libcurl stop with a write error.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        lastActivity = DispatchTime.now().uptimeNanoseconds
        received += Int64(bytes.count)
        if !sinkPrepared { prepareSink() }
        if failure != nil { return 0 }
        switch sink {
        case .memory(let limit):
            guard body.count + bytes.count <= limit else {
                failure = .responseTooLarge(limit: limit)
                return 0
            }
            body.append(contentsOf: bytes)
        case .file(let fd, let path, _):
            if !(200..<300).contains(status) {
                // An error page is not file content: keep its start for the error, never write it.
                body.append(contentsOf: bytes.prefix(max(0, Self.errorBodyLimit - body.count)))
                return bytes.count
            }
            let tail = self.tail ?? .allocate(byteCount: Self.blockSize, alignment: Self.blockSize)
            self.tail = tail
            // Write what reaches the last block boundary this piece gets to; hold back the rest.
            let end = filePosition + Int64(tailCount + bytes.count)
            let blockEnd = end - end % Int64(Self.blockSize)
            var rest = bytes[...]
            if blockEnd > filePosition {
                let now = Int(blockEnd - filePosition) - tailCount
                guard write([UnsafeRawBufferPointer(rebasing: tail[..<tailCount]), UnsafeRawBufferPointer(rebasing: bytes[..<now])],
                            fd: fd, path: path) else { return 0 }
                tailCount = 0
                rest = bytes[now...]
            }
            UnsafeMutableRawBufferPointer(rebasing: tail[tailCount..<(tailCount + rest.count)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest))
            tailCount += rest.count
        }
        return bytes.count
    }

    /// Writes `pieces` one after another at `filePosition` and moves it on; false, with `failure`
    /// set, when the disk refuses.
    private func write(_ pieces: [UnsafeRawBufferPointer], fd: Int32, path: String) -> Bool {
        var left = pieces.filter { !$0.isEmpty }, offset = filePosition
        while !left.isEmpty {
            var vectors = left.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count) }
            var written = pwritev(fd, &vectors, Int32(vectors.count), off_t(offset))
            if written < 0 {
                if errno == EINTR { continue }
                failure = errno == ENOSPC || errno == EDQUOT ? .diskFull(path: path) : .diskWrite(path: path, errno: errno)
                return false
            }
            offset += Int64(written)
            while written > 0, let first = left.first {
                if written >= first.count {
                    written -= first.count
                    left.removeFirst()
                } else {
                    left[0] = UnsafeRawBufferPointer(rebasing: first[written...])
                    written = 0
                }
            }
        }
        filePosition = offset
        writeback?.written(upTo: filePosition)
        reportProgress(force: false)
        return true
    }

    /// Decides, once the final response's headers are in, where its body goes.
    private func prepareSink() {
        sinkPrepared = true
        if case .memory(let limit) = sink, let length = headers["content-length"].flatMap({ Int64($0) }), length > Int64(limit) {
            // Said up front: refused before a byte of the body is taken.
            failure = .responseTooLarge(limit: limit)
            return
        }
        guard case .file(let fd, let path, let requestedOffset) = sink else { return }
        let length = headers["content-length"].flatMap { Int64($0) }
        switch status {
        case 206:
            guard let range = ContentRange(headers["content-range"]), range.start == requestedOffset else {
                failure = .unexpectedRange(host)
                return
            }
            expectedTotal = range.total
        case 200..<300:
            if requestedOffset > 0 {
                // The server ignored Range (or If-Range said the file changed): start the file over.
                if ftruncate(fd, 0) != 0 { failure = .diskWrite(path: path, errno: errno); return }
                sink = .file(descriptor: fd, path: path, offset: 0)
                fileStart = 0
                filePosition = 0
            }
            expectedTotal = length
        default:
            return
        }
        onResponse?(bodyValidator)
        writeback = DownloadWriteback(fd: fd, from: filePosition, observer: onWritten)
    }

    /// Progress from the bytes really written; at most every 100 ms unless forced.
    private func reportProgress(force: Bool) {
        guard let onProgress else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard force || now - lastProgressReport >= 100_000_000 else { return }
        lastProgressReport = now
        reportedPosition = filePosition
        onProgress(TransferProgress(bytes: filePosition, expectedTotal: expectedTotal, validator: bodyValidator))
    }

    /// Non-zero aborts the transfer: how cancellation, and the stall watchdog, reach libcurl. libcurl
    /// calls this about once a second even when no data moves. (curl's own low-speed limit averages
    /// over a window of several seconds; "no byte for N seconds" is sharper and easier to explain.)
    fileprivate func shouldAbort() -> Bool {
        if cancelled { return true }
        // The last piece before a pause fell within the throttle: said now, so a bar shows it.
        if filePosition != reportedPosition { reportProgress(force: false) }
        let now = DispatchTime.now().uptimeNanoseconds
        if now - lastActivity > stallTimeout {
            failure = failure ?? .stalled(host)
            return true
        }
        if let minimumRate, now - rateWindow.start >= UInt64(max(minimumRate.window.milliseconds, 1)) * 1_000_000 {
            let seconds = Double(now - rateWindow.start) / 1e9
            if Double(received - rateWindow.received) < Double(minimumRate.bytesPerSecond) * seconds {
                failure = failure ?? .tooSlow(host, bytesPerSecond: minimumRate.bytesPerSecond, seconds: seconds.clampedInt(in: 0...Format.largestShown))
                return true
            }
            rateWindow = (now, received)
        }
        if let deadline, now > deadline.at {
            failure = failure ?? .deadlineExceeded(host, seconds: Int(deadline.limit.components.seconds))
            return true
        }
        return false
    }

    /// The ETag (else Last-Modified) of the response whose body was being written, for resuming after
    /// a failure, and saved with progress for a resume after a crash. Engine thread only.
    var bodyValidator: String? {
        guard (200..<300).contains(status) else { return nil }
        return headers["etag"] ?? headers["last-modified"]
    }

    /// Turns libcurl's result into the outcome the caller waits for.
    func finish(_ code: CURLcode) {
        if !sinkPrepared { prepareSink() }
        // The held-back bytes are kept however the transfer ended (unless the disk is what failed):
        // a retry resumes after them.
        let diskFailed = switch failure { case .diskFull?, .diskWrite?: true; default: false }
        if case .file(let fd, let path, _) = sink, !diskFailed, let tail, tailCount > 0,
           write([UnsafeRawBufferPointer(rebasing: tail[..<tailCount])], fd: fd, path: path) {
            tailCount = 0
        }
        writeback?.finish(at: filePosition)
        complete(result(for: code))
    }

    private func result(for code: CURLcode) -> Result<Outcome, HTTPError> {
        if code == CURLE_OK, let failure { return .failure(failure) }
        guard code == CURLE_OK else { return .failure(failure ?? error(for: code)) }
        reportProgress(force: true)
        var effective: UnsafeMutablePointer<CChar>?
        mb_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        let effectiveURL = effective.flatMap { URL(string: String(cString: $0)) } ?? url
        return .success(Outcome(status: status, headers: headers, body: body, effectiveURL: effectiveURL,
                                fileStart: fileStart, fileEnd: filePosition))
    }

    private func error(for code: CURLcode) -> HTTPError {
        let message = String(cString: errorBuffer)
        switch code {
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .cannotResolveHost(host)
        case CURLE_COULDNT_CONNECT: return .cannotConnect(host)
        case CURLE_OPERATION_TIMEDOUT: return .timedOut(host)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2_STREAM:
            return .connectionLost(host)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CIPHER:
            return .tls(host: host, detail: message.isEmpty ? "handshake failed" : message)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidURL(url.absoluteString)
        default:
            let text = message.isEmpty ? String(cString: mb_curl_easy_strerror(code)) : message
            return .transport(code: Int(code.rawValue), message: text)
        }
    }
}

// libcurl's C callbacks: global functions that find their transfer through the user pointer.

private func curlWriteBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                           _ user: UnsafeMutableRawPointer?) -> Int {
    guard let user, let data else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

private func curlWriteHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                             _ user: UnsafeMutableRawPointer?) -> Int {
    guard let user, let data else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    transfer.receiveHeader(String(decoding: bytes, as: UTF8.self))
    return size * count
}

private func curlTransferInfo(_ user: UnsafeMutableRawPointer?, _ dltotal: curl_off_t, _ dlnow: curl_off_t,
                              _ ultotal: curl_off_t, _ ulnow: curl_off_t) -> Int32 {
    guard let user else { return 0 }
    return Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue().shouldAbort() ? 1 : 0
}

/// libcurl, loaded and set up once, when the first transfer asks for it (see CCurl's shim).
enum CurlGlobal {
    /// Whether it could be loaded (and then it is set up).
    static let isAvailable: Bool = {
        guard mb_curl_available() != 0 else { return false }
        mb_curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()
}
