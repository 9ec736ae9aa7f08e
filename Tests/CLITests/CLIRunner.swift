import Foundation

/// Runs the built `mapbook` executable and collects what it printed.
struct CLIResult {
    var status: Int32
    var output: Data
    var stderr: String

    var stdout: String { String(decoding: output, as: UTF8.self) }
}

enum CLI {
    /// The config folder every command run here shares (sign-ins, settings).
    static let configHome = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-cli-config-\(getpid())").path

    /// The executable sits beside the test bundle in the build folder.
    static var executable: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0])
        var folder = testBinary.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("mapbook")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/mapbook")
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CLIResult {
        let (process, output, errors) = try start(arguments, environment: environment)
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, output: output.wait(), stderr: String(decoding: errors.wait(), as: UTF8.self))
    }

    /// `run` for async tests: waits for the process without holding one of the few cooperative
    /// threads (a blocked one starves every other async test in the process).
    /// `niced`: the command runs at a lower priority (`nice -n 10`), for tests that start many at
    /// once, which would otherwise crowd out the timing of every other test in this process.
    /// `killedAfter`: a command still running then is killed (status 137), for commands that must
    /// end by themselves.
    static func runAsync(_ arguments: [String], environment: [String: String] = [:], input: String? = nil,
                         niced: Bool = false, killedAfter limit: Duration? = nil) async throws -> CLIResult {
        let (process, output, errors) = try start(arguments, environment: environment, input: input, niced: niced)
        await process.exited(killedAfter: limit)
        return CLIResult(status: process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus,
                         output: output.wait(), stderr: String(decoding: errors.wait(), as: UTF8.self))
    }

    /// Starts mapbook with no token in its environment, its output drained on other threads (so a
    /// full pipe cannot block the child).
    private static func start(_ arguments: [String], environment: [String: String], input: String? = nil,
                              niced: Bool = false) throws -> (Process, PipeDrain, PipeDrain) {
        let process = Process()
        if niced {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
            process.arguments = ["-n", "10", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "MAPBOOK_TOKEN")
        env.removeValue(forKey: "MAPBOOK_API_KEY")
        // Sign-ins and settings of this test process only, never the user's.
        env["XDG_CONFIG_HOME"] = CLI.configHome
        env["XDG_STATE_HOME"] = CLI.configHome + "/state"
        // Never the desktop keyring of whoever runs the tests.
        env["MAPBOOK_KEYRING"] = "0"
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        if let stdin, let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        return (process, PipeDrain(out.fileHandleForReading), PipeDrain(err.fileHandleForReading))
    }
}

extension Process {
    /// Returns once the process has ended, polling rather than blocking a thread; killed once
    /// `limit` has passed.
    func exited(killedAfter limit: Duration? = nil) async {
        let deadline = limit.map { ContinuousClock.now + $0 }
        while isRunning {
            if let deadline, ContinuousClock.now > deadline { kill(processIdentifier, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        waitUntilExit()
    }
}

/// Reads a pipe to its end on another thread.
final class PipeDrain: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
