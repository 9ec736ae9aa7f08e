import Foundation
import MapbookCore
import Geometry

/// A place a user marked: where, what it is called, a note, and a link.
public struct Pin: Codable, Equatable, Sendable {
    public var id: String
    public var title: String
    public var note: String?
    /// http or https only.
    public var link: String?
    public var longitude: Double
    public var latitude: Double
    public var created: Date
    /// Metres the place may be off: the fix's accuracy when pinned at this device's position.
    public var accuracy: Double?

    public init(id: String, title: String, note: String?, link: String?, longitude: Double, latitude: Double, created: Date,
                accuracy: Double? = nil) {
        self.id = id; self.title = title; self.note = note; self.link = link
        self.longitude = longitude; self.latitude = latitude; self.created = created; self.accuracy = accuracy
    }
}

/// A pin that cannot be kept: one sentence.
public struct PinError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}
