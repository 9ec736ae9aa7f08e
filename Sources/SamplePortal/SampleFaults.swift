import Foundation

/// Faults the sample portal injects, so tests and demos can see how mapbook copes. Set at start
/// (`mapbook sample-portal --faults "bandwidth=200k,latency=100"`) or at run time
/// (`GET /admin/faults?status=503&count=2`). Transfer faults apply to package downloads; `latency`
/// and `status` to every request but the admin endpoint.
public struct SampleFaults: Sendable, Equatable {
    /// Added before every answer.
    public var latencyMilliseconds = 0
    /// Caps package and tile bodies.
    public var bytesPerSecond: Int?
    /// Closes a package download after this many body bytes.
    public var dropAfterBytes: Int?
    /// Answers with this status (500 or 503, with `Retry-After` when set)…
    public var errorStatus: Int?
    public var retryAfterSeconds: Int?
    /// …for this many requests, then recovers (0: until changed).
    public var errorCount = 0
    /// Stops sending a package after this many bytes and holds the connection for `stallSeconds`.
    public var stallAfterBytes: Int?
    public var stallSeconds = 30
    /// Stops sending a package at this offset of its file (a retried range too) until
    /// `SamplePortal.releaseHeldDownloads()`: a download seen part way, whatever the machine's load.
    public var holdAfterBytes: Int?
    /// How many package downloads `drop` and `stall` spoil before the link heals (0: all of them).
    public var disruptedDownloads = 0
    /// Accepts every connection (but the admin endpoint's) and closes it without answering: a portal
    /// behind a failing proxy.
    public var hangUp = false
    /// The geocode service answers HTTP 503, as one behind a failing load balancer.
    public var geocodeDown = false
    /// The route service answers HTTP 503.
    public var routeDown = false
    /// The route service finds no way between any stops ("No solution found.").
    public var noRoute = false
    /// The route service refuses a caller without a token (499), as ArcGIS Online's does.
    public var routeNeedsSignIn = false
    /// The FeatureServer answers HTTP 503.
    public var featuresDown = false
    /// The next this many `applyEdits` and `addAttachment` are applied, then their answers cut off
    /// after a few bytes: a server that took the edits and dropped the connection (`editsCut=N`).
    public var cutEditAnswers = 0
    /// The FeatureServer's layers become read-only ("Query,Sync"): `applyEdits` is refused (`readOnly`).
    public var readOnlyFeatures = false
    /// Offline export jobs (`jobs=…`): `fail` (they end failed), `stuck` (they never finish), `lost`
    /// (their file is gone: 404); nil: they succeed.
    public var exportJobs: String?
    /// Answers `Range` requests with 200 and the whole file.
    public var ignoreRange = false
    /// Declares a `Content-Length` longer than the body.
    public var wrongLength = false
    /// Flips bytes in package bodies (the ETag stays: a bad proxy, not an update).
    public var corrupt = false
    /// Tokens issued from now on expire after this many seconds.
    public var tokenExpirySeconds: Int?
    /// Every token and refresh token is refused (498), as after an administrator revoked them.
    public var revoked = false
    /// Map areas reported as `processing` or `failed` instead of `complete`, by area id.
    public var areaStatus: [String: String] = [:]
    /// Map areas whose Area2Package answer is malformed (`"relatedItems": null`), by area id.
    public var malformedAreas: Set<String> = []
    /// Packages updated on the portal since first published (`update=AREA`): how many times, by
    /// package id. Each update moves `modified` a day on and changes the bytes.
    public var updates: [String: Int] = [:]
    /// Servers the portal lists as federated with it (`portals/{id}/servers`), by root address
    /// (`server=https://host/server`): the only ones a signed-in client may send its token to.
    public var federatedServers: [String] = []
    /// `portals/self` says `isPortal: true`, as ArcGIS Enterprise does (ArcGIS Online says false).
    public var enterprise = false

    public init() {}

    public struct InvalidSetting: Error, CustomStringConvertible {
        public var description: String
    }

    /// The settings syntax: `key=value` pairs separated by commas (flags, and `reset`, take no value).
    public mutating func apply(_ text: String) throws {
        let pairs = text.split(separator: ",").map { pair -> (String, String) in
            let kv = pair.split(separator: "=", maxSplits: 1)
            return (kv[0].trimmingCharacters(in: .whitespaces), kv.count == 2 ? kv[1].trimmingCharacters(in: .whitespaces) : "")
        }
        try apply(pairs)
    }

    public mutating func apply(_ settings: [(String, String)]) throws {
        for (key, value) in settings {
            func number() throws -> Int {
                guard let n = Self.size(value), n >= 0 else { throw InvalidSetting(description: "\(key) needs a number, not \"\(value)\"") }
                return n
            }
            func flag() -> Bool { value.isEmpty || ["1", "true", "on", "yes"].contains(value.lowercased()) }
            /// An area by its id, its package's id, or its title.
            func area() throws -> SampleArea {
                guard let area = SampleCatalog.areas.first(where: {
                    $0.id == value || $0.packageID == value || $0.title.lowercased() == value.lowercased()
                }) else { throw InvalidSetting(description: "\(key): no map area \"\(value)\"") }
                return area
            }
            switch key {
            case "latency": latencyMilliseconds = try number()
            case "bandwidth": bytesPerSecond = try number().nonZero
            case "drop": dropAfterBytes = try number()
            case "status":
                let status = try number()
                guard (400...599).contains(status) else { throw InvalidSetting(description: "status must be 400–599") }
                errorStatus = status
            case "retryAfter": retryAfterSeconds = try number()
            case "count": errorCount = try number()
            case "stall": stallAfterBytes = try number()
            case "stallSeconds": stallSeconds = try number()
            case "hold": holdAfterBytes = try number()
            case "times": disruptedDownloads = try number()
            case "hangup": hangUp = flag()
            case "geocodeDown": geocodeDown = flag()
            case "featuresDown": featuresDown = flag()
            case "editsCut": cutEditAnswers = try number()
            case "readOnly": readOnlyFeatures = flag()
            case "routeDown": routeDown = flag()
            case "noRoute": noRoute = flag()
            case "routeNeedsSignIn": routeNeedsSignIn = flag()
            case "jobs":
                guard ["fail", "stuck", "lost", "none"].contains(value) else {
                    throw InvalidSetting(description: "jobs is fail, stuck, lost or none, not \"\(value)\"")
                }
                exportJobs = value == "none" ? nil : value
            case "ignoreRange": ignoreRange = flag()
            case "wrongLength": wrongLength = flag()
            case "corrupt": corrupt = flag()
            case "tokenExpiry": tokenExpirySeconds = try number()
            case "revoked": revoked = flag()
            case "processing", "failed": areaStatus[try area().id] = key
            case "complete": areaStatus[try area().id] = nil
            case "update":
                let isMobilePackage = [SampleMobilePackage.id, SampleMobilePackage.title.lowercased()].contains(value.lowercased())
                updates[isMobilePackage ? SampleMobilePackage.id : try area().packageID, default: 0] += 1
            case "malformed": malformedAreas.insert(try area().id)
            case "enterprise": enterprise = flag()
            case "server":
                guard let url = URL(string: value), url.scheme != nil, url.host != nil else {
                    throw InvalidSetting(description: "server needs an address, not \"\(value)\"")
                }
                federatedServers.append(value)
            case "reset": self = SampleFaults()
            // Handled by the portal, which owns the listener and the features.
            case "outage", "officeEdit", "officeDelete": break
            default: throw InvalidSetting(description: "unknown fault \"\(key)\"")
            }
        }
    }

    /// `200000`, `200k`, `2M`.
    static func size(_ text: String) -> Int? {
        let lower = text.lowercased()
        if let last = lower.last, let unit = ["k": 1024, "m": 1 << 20][String(last)] {
            return Int(lower.dropLast()).map { $0 * unit }
        }
        return Int(lower)
    }
}

private extension Int {
    var nonZero: Int? { self == 0 ? nil : self }
}
