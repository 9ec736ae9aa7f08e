import Foundation
import Testing

/// The project's shared test data, beside the repository (`../shared/data`). Tests that need it are
/// skipped, with this message, when it is absent.
enum SharedData {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/data")

    static var available: Bool { FileManager.default.fileExists(atPath: root.path) }

    static let skipMessage: Comment = "needs ../shared/data beside the repository"

    static func url(_ path: String) -> URL { root.appendingPathComponent(path) }
}
