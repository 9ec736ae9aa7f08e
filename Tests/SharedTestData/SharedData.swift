import Foundation
import Testing

/// The project's shared test data, beside the repository (`../shared/data`). Tests that need it are
/// skipped, with this message, when it is absent.
public enum SharedData {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/data")

    public static var available: Bool { FileManager.default.fileExists(atPath: root.path) }

    public static let skipMessage: Comment = "needs ../shared/data beside the repository"

    public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }
}
