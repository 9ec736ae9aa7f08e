/// A request the update asks the runtime for and waits on the answer to: minted by `Requests.mint`,
/// carried by the effect and by the event that answers it. An answer to a request no longer waited
/// for (a newer estimate asked, a result gone) is dropped by matching ids, not by counters of each
/// feature's own.
public struct RequestID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(integerLiteral value: Int) { rawValue = value }

    public static func < (a: RequestID, b: RequestID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// The requests under way: each from `mint` until its answer arrives (`answered`). Whether the
/// program has settled — what the plain mode waits for before it reads the next piped command —
/// is derived from it, so a feature that asks through it is waited for without a rule of its own.
/// It also numbers what else is answered by number: the maps opened and the notices that fade.
public struct Requests: Equatable, Sendable {
    private var last = 0
    public private(set) var pending: Set<RequestID> = []
    /// Each map opened gets a new number: results for a map that has been closed are ignored.
    public var mapSessions = 0
    /// Counts the notices that fade: an expiry for an earlier one does not clear a newer.
    public var noticeSerial = 0

    public init() {}

    /// A new request, pending until answered.
    public mutating func mint() -> RequestID {
        last += 1
        let id = RequestID(rawValue: last)
        pending.insert(id)
        return id
    }

    /// Its answer arrived (whether or not anything still waits for it).
    public mutating func answered(_ id: RequestID) { pending.remove(id) }

    /// A newer request replaces it and the runtime drops it (a suggestion for what was typed
    /// before): no answer may come, so nothing waits for one.
    public mutating func replaced(_ id: RequestID) { pending.remove(id) }

    public var isEmpty: Bool { pending.isEmpty }
}
