import ArcGISModel
import ArcGISPortal
import Foundation
import HTTP
import LibraryModel
import MapbookCore
import Synchronization

/// A fleet mirror as a device uses it (`--mirror URL`, `mirror = URL`): a folder `mapbook stage`
/// wrote, served by nginx, an object store, a CDN or any static host. It holds the files that answer
/// the portal's REST requests (`MirrorLayout`), and is read by their names with a `PortalClient` of
/// its own — one that never carries the portal's token: the portal does not vouch for its host.
///
/// Two rules, one place:
/// - package bytes come from the mirror when `mirror.json` lists the same item at the same
///   `modified` and size, and are checked against its SHA-256; anything else comes from the portal;
/// - the catalogue (items, web map, areas, thumbnails) comes from the portal, and from the mirror
///   when the portal cannot be reached.
public final class Mirror: Sendable {
    public let url: URL
    /// Reads the mirror as if it were a portal, anonymously.
    public let client: PortalClient
    private let http: HTTPClient
    private let index = Mutex<(MirrorIndex, ContinuousClock.Instant)?>(nil)
    /// Until when the portal is taken as unreachable: after one call found it so, the next go to
    /// the mirror at once instead of each waiting out its own timeout (a silent portal takes 10 s
    /// a request).
    private let portalAwayUntil = Mutex<ContinuousClock.Instant?>(nil)

    /// How long one unreachable answer stands for the portal.
    static let portalAwayFor: Duration = .seconds(30)

    /// `mirror.json` is read again after this long: a stage may have refreshed it.
    static let indexLifetime: Duration = .seconds(60)

    /// The largest `mirror.json` read: a few hundred bytes per staged file; and the longest its
    /// reading may take, however its bytes trickle in.
    static let maxIndexBytes = 32 << 20
    static let indexDeadline: Duration = .seconds(20)

    /// A mirror is there to be faster than the portal: one that sends less than this is given up
    /// for the portal. A site's mirror serves megabytes a second; the portal at its slowest, more.
    public static let standardMinimumRate = (bytesPerSecond: 64 << 10, window: Duration.seconds(20))

    /// Once the mirror failed as a mirror (unreachable, too slow, no readable `mirror.json`), it
    /// is not asked again for this long — for the rest of a command's run — and packages come from
    /// the portal at once; why is kept for the sentence.
    static let givenUpFor: Duration = .seconds(600)
    private let givenUp = Mutex<(reason: String, until: ContinuousClock.Instant)?>(nil)

    /// `bearer`: the mirror's own credential (a private bucket's token), sent to its host only.
    public init(url: URL, http: HTTPClient = PortalClient.apiHTTP, minimumRate: (bytesPerSecond: Int, window: Duration) = Mirror.standardMinimumRate,
                bearer: String? = nil) {
        self.url = url
        self.http = http
        // Asked for the files `stage` wrote, by their names: any static host serves them; a request
        // that trickles below the minimum rate is given up, whatever it asks for.
        client = PortalClient(portal: url, session: nil, http: http, addressing: .files, mirrorBearer: bearer, minimumRate: minimumRate)
    }

    /// Why the mirror is not being asked, while it is given up.
    var givenUpReason: String? {
        givenUp.withLock { state in state.flatMap { ContinuousClock.now < $0.until ? $0.reason : nil } }
    }

    private func giveUp(because sentence: String) {
        let reason = "the mirror at \(host) was left for the portal earlier (\(sentence))"
        givenUp.withLock { $0 = (reason, .now + Self.givenUpFor) }
    }

    /// The request for an item's bytes from the mirror (given up when it trickles, as every request
    /// to the mirror is).
    func packageRequest(_ id: ItemID) -> HTTPRequest { client.packageRequest(id) }

    /// The mirror's host and port, as it is named to the user.
    public var host: String { client.host + (url.port.map { ":\($0)" } ?? "") }

    /// `mirror.json`, read once a minute at most. Throws `HTTPError`, or `MirrorError` when it is
    /// not an index this version reads.
    public func currentIndex() async throws -> MirrorIndex {
        if let (kept, at) = index.withLock({ $0 }), ContinuousClock.now - at < Self.indexLifetime { return kept }
        var request = client.request(file: MirrorLayout.index)
        request.maxBodyBytes = Self.maxIndexBytes
        request.deadline = Self.indexDeadline
        let response = try await http.send(request)
        let read: MirrorIndex
        do {
            read = try JSONTreeDecoder.decode(MirrorIndex.self, from: response.body)
        } catch {
            throw MirrorError.unreadableIndex(host: host)
        }
        guard read.format == MirrorIndex.currentFormat else { throw MirrorError.unknownFormat(host: host, format: read.format) }
        index.withLock { $0 = (read, .now) }
        return read
    }

    /// An item's thumbnail from the mirror, when `mirror.json` lists it staged since the item last
    /// changed: checked by its SHA-256; nil otherwise (the portal gives it then). A site's devices
    /// then ask the portal for no picture the mirror holds. Throws when the mirror could not be
    /// asked (its index, or the picture, unreachable or too slow): the caller asks it no more.
    func thumbnail(of item: PortalItem) async throws -> Data? {
        guard givenUpReason == nil, let name = item.thumbnail, let path = MirrorLayout.info(of: item.id, named: name) else { return nil }
        guard let (file, stagedAt) = try await currentIndex().file(at: path), (item.modified ?? .distantPast) <= stagedAt else { return nil }
        let data = try await client.thumbnail(of: item) ?? Data()
        return Int64(data.count) == file.size && FileDigest.sha256(data) == file.sha256 ? data : nil
    }



    /// The mirror's copy of an item's data, when it is the version the portal lists (same
    /// `modified`, same size); nil when the mirror holds another version or none, with why when
    /// the mirror could not be asked at all.
    func copy(of id: ItemID, modified: Date?, size: Int64?) async -> (file: MirrorFile?, problem: String?) {
        if let reason = givenUpReason { return (nil, reason) }
        let index: MirrorIndex
        do { index = try await currentIndex() } catch {
            giveUp(because: error.userSentence)
            return (nil, "the mirror at \(host) could not be asked (\(error.userSentence))")
        }
        guard let file = index.package(id), let size, size > 0, file.size == size,
              file.modified == modified.map(DownloadRecord.millis) else { return (nil, nil) }
        return (file, nil)
    }

    /// Where an item's bytes came from, and why the mirror's copy was not taken if it was tried.
    struct Fetched<Value> {
        var value: Value
        /// The mirror's address when the bytes came from it.
        var mirror: String?
        var mirrorProblem: String?
    }

    /// What a copy from the mirror is checked against: the SHA-256 `mirror.json` lists, and where
    /// the portal answers, the portal's own bytes of the package's zip directory.
    struct CopyCheck: Sendable {
        let sha256: String
        let portal: HTTPRequest
        let http: HTTPClient
    }

    /// One item's data, from `mirror` when it holds this version, else (or when its copy cannot be
    /// had or is not what `mirror.json` and the portal say) from the portal: the one rule for area
    /// packages and mobile map packages. `attempt` fetches and checks from the request it is given,
    /// with what a mirror's copy is checked against (nil from the portal; see `check`). A failure
    /// from both sources says both.
    static func fetch<Value>(_ id: ItemID, title: String, modified: Date?, size: Int64?, mirror: Mirror?, portal: HTTPRequest,
                             isolation: isolated (any Actor)? = #isolation,
                             _ attempt: (HTTPRequest, CopyCheck?) async throws -> Value) async throws -> Fetched<Value> {
        var problem: String?
        let (listed, unasked) = await mirror?.copy(of: id, modified: modified, size: size) ?? (nil, nil)
        problem = unasked
        if let mirror, let copy = listed {
            do {
                let check = CopyCheck(sha256: copy.sha256, portal: portal, http: mirror.http)
                return Fetched(value: try await attempt(mirror.packageRequest(id), check), mirror: mirror.url.absoluteString)
            } catch let error as HTTPError {
                problem = "the mirror at \(mirror.host) could not give it (\(error.userSentence))"
                // A mirror that cannot be reached, or trickles, is left for the rest of the run.
                if error.networkState != .online { mirror.giveUp(because: error.userSentence) }
            } catch let error as LibraryError where !error.isDiskFull {
                switch error {
                case .damaged(_, let detail, _): problem = "the mirror's copy is damaged (\(detail))"
                case .sizeMismatch(_, let expected, let actual, _):
                    problem = "the mirror's copy is \(Format.bytes(actual)), not the \(Format.bytes(expected)) listed"
                default: problem = "the mirror's copy could not be kept (\(error.userSentence))"
                }
            }
        }
        do {
            return Fetched(value: try await attempt(portal, nil), mirrorProblem: problem)
        } catch where problem != nil && !(error is CancellationError) {
            throw MirrorFallbackError(package: title, mirrorProblem: problem!, portal: error)
        }
    }

    /// Checks a file that came from the mirror: against the SHA-256 `mirror.json` lists (`streamed`
    /// when the download could hash it as it arrived, else read from disk), then — the mirror's
    /// word alone cannot vouch for a copy it chose — against the portal's own bytes of the zip's
    /// directory (every entry's name, size and CRC-32, a few kilobytes asked by range). Returns
    /// what vouched for it, for the record; nil for a copy from the portal.
    static func check(_ path: String, title: String, against check: CopyCheck?, streamed: String?) async throws(LibraryError) -> String? {
        guard let check else { return nil }
        let actual: String
        if let streamed { actual = streamed } else { actual = try FileDigest.sha256(path: path) }
        if actual != check.sha256 { throw .damaged(package: title, detail: "its SHA-256 is not the one mirror.json lists") }
        switch await PortalVouch.compare(path, with: check.portal, http: check.http) {
        case .agrees: return "SHA-256, the portal's zip directory"
        case .differs: throw .damaged(package: title, detail: "its zip directory is not the portal's")
        case .unasked: return "SHA-256 of mirror.json"
        }
    }

    /// Runs `body` with the portal's client; when the portal cannot be reached, again with the
    /// mirror's. Errors other than an unreachable portal are the portal's answer, and stand.
    /// Once the portal was found unreachable, calls for the next half minute go to the mirror at once.
    public static func preferringPortal<T>(_ portal: PortalClient, mirror: Mirror?, isolation: isolated (any Actor)? = #isolation,
                                           _ body: (PortalClient) async throws -> T) async throws -> T {
        if let mirror, mirror.portalAwayUntil.withLock({ $0.map { ContinuousClock.now < $0 } ?? false }) {
            return try await body(mirror.client)
        }
        do {
            return try await body(portal)
        } catch let error as HTTPError where error.networkState.isCutOff {
            guard let mirror else { throw error }
            mirror.portalAwayUntil.withLock { $0 = .now + portalAwayFor }
            return try await body(mirror.client)
        }
    }

    /// Whether the portal answers, else whether the mirror does: with a mirror that answers, the
    /// staged web maps can be browsed and downloaded with the portal gone.
    public static func probe(_ portal: PortalClient, mirror: Mirror?) async -> NetworkState {
        let state = await portal.probe()
        guard state.isCutOff, let mirror else { return state }
        return await mirror.client.probe() == .online ? .online : state
    }
}

/// What a device can find wrong with a mirror itself.
public enum MirrorError: Error, Sendable, Equatable, UserFacingError {
    case unreadableIndex(host: String)
    case unknownFormat(host: String, format: Int)

    public var userMessage: String {
        switch self {
        case .unreadableIndex(let host):
            "The mirror at \(TerminalText.sanitizedLine(host, maxLength: 120)) has no readable mirror.json; stage it again with mapbook stage."
        case .unknownFormat(let host, let format):
            "The mirror at \(TerminalText.sanitizedLine(host, maxLength: 120)) is in layout \(format), which this mapbook does not read; update mapbook."
        }
    }
}

/// The mirror's copy could not be taken and the portal could not give the package either: both
/// said in one sentence. Judged as the portal's failure (an unreachable portal is waited out).
struct MirrorFallbackError: Error, UserFacingError {
    let package: String
    let mirrorProblem: String
    let portal: any Error

    var userMessage: String {
        "\(TerminalText.sanitizedLine(package, maxLength: 120)): \(mirrorProblem), and from the portal: \(portal.userSentence)"
    }
}

/// The portal's word on a mirror's copy: the bytes of the package's zip directory (and its end
/// record) as the portal serves them, asked by a range, compared with the copy's. A copy whose
/// entries differ in name, size or CRC-32 from the portal's is not the portal's; one that agrees
/// could still differ only where the CRC-32s were forged to match, which `docs/fleet.md` says.
enum PortalVouch {
    enum Verdict: Equatable { case agrees, differs, unasked }

    /// The most of a package's tail asked for (a directory of some ten thousand entries).
    static let largestDirectory: Int64 = 1 << 20

    static func compare(_ path: String, with portal: HTTPRequest, http: HTTPClient) async -> Verdict {
        guard let file = try? ReadableFile(path: path), let start = directoryStart(of: file) else { return .unasked }
        let length = file.size - start
        var request = portal
        request.headers.append(("Range", "bytes=\(start)-\(file.size - 1)"))
        request.deadline = .seconds(30)
        request.maxBodyBytes = Int(largestDirectory) + 1024
        guard let response = try? await http.send(request) else { return .unasked }
        let theirs: Data
        switch response.status {
        case 206: theirs = response.body
        case 200 where Int64(response.body.count) == file.size: theirs = response.body.suffix(Int(length))
        default: return .unasked
        }
        return theirs == file.read(at: start, upTo: Int(length)) ? .agrees : .differs
    }

    /// Where the zip's central directory begins, when the file is a zip whose directory is small
    /// enough to ask for; nil for anything else.
    static func directoryStart(of file: ReadableFile) -> Int64? {
        let tail = min(file.size, 65_557)
        let bytes = [UInt8](file.read(at: file.size - tail, upTo: Int(tail)))
        guard bytes.count >= 22 else { return nil }
        for at in stride(from: bytes.count - 22, through: 0, by: -1)
        where bytes[at] == 0x50 && bytes[at + 1] == 0x4B && bytes[at + 2] == 0x05 && bytes[at + 3] == 0x06 {
            func u32(_ i: Int) -> Int64 { Int64(bytes[i]) | Int64(bytes[i + 1]) << 8 | Int64(bytes[i + 2]) << 16 | Int64(bytes[i + 3]) << 24 }
            let offset = u32(at + 16)
            // Zip64 packages keep their directory's place elsewhere: their tail is asked for instead.
            let start = offset == 0xFFFF_FFFF ? file.size - min(file.size, 65_536) : offset
            guard start >= 0, start < file.size, file.size - start <= largestDirectory else { return nil }
            return start
        }
        return nil
    }
}
