import Foundation

/// A small memory disk for tests of a full disk (`mount -t tmpfs`, so root only): false when it
/// cannot be had, and the test says it was skipped.
public func mountTmpfs(_ path: String, size: String) -> Bool { mountTmpfs(path, options: "size=\(size)") }

public func mountTmpfs(_ path: String, options: String) -> Bool {
    guard getuid() == 0 else { return false }
    return run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path]) == 0
}

public func umountTmpfs(_ path: String) {
    _ = run("/bin/umount", [path])
    try? FileManager.default.removeItem(atPath: path)
}

private func run(_ tool: String, _ arguments: [String]) -> Int32 {
    guard FileManager.default.isExecutableFile(atPath: tool) else { return -1 }
    var pid = pid_t()
    let argv = ([tool] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    guard posix_spawn(&pid, tool, nil, nil, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return (status >> 8) & 0xFF
}
