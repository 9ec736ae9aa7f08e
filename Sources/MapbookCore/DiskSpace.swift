import Foundation

/// Room on a disk.
public enum DiskSpace {
    /// Bytes free to this user on the disk holding `path`; nil when it cannot be told.
    public static func available(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(clamping: UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize)).partialValue)
    }
}
