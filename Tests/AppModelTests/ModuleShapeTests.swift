import Foundation
import Testing

/// The layering, read from Package.swift: the model of the app is values and rules, so it must
/// build without the network stack, and every module says what it imports.
@Suite("Module shape")
struct ModuleShapeTests {
    /// Each target's declared dependencies, by name.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func targets() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = try Regex(#"\.(?:target|executableTarget|testTarget)\(name: "(\w+)", dependencies: \[([^\]]*)\]"#)
        let quoted = try Regex(#""(\w+)""#)
        var found: [String: Set<String>] = [:]
        for match in manifest.matches(of: target) {
            let name = String(match.output[1].substring ?? "")
            let list = match.output[2].substring ?? ""
            found[name] = Set(list.matches(of: quoted).compactMap { $0.output[1].substring.map(String.init) })
        }
        // Targets with no dependencies, and system libraries, depend on nothing.
        for match in manifest.matches(of: try Regex(#"\.\w+\(name: "(\w+)""#)) {
            let name = String(match.output[1].substring ?? "")
            if found[name] == nil { found[name] = [] }
        }
        return found
    }

    static func closure(of name: String, in targets: [String: Set<String>]) -> Set<String> {
        var seen: Set<String> = []
        var queue = [name]
        while let next = queue.popLast() {
            for dependency in targets[next] ?? [] where seen.insert(dependency).inserted { queue.append(dependency) }
        }
        return seen
    }

    @Test func theAppModelBuildsWithoutTheNetworkStack() throws {
        let targets = try Self.targets()
        #expect(targets["AppModel"] != nil, "Package.swift names the AppModel target")
        let reached = Self.closure(of: "AppModel", in: targets)
        for networking in ["CCurl", "HTTP", "ArcGISPortal", "OfflineLibrary", "MapSources", "SignIn"] {
            #expect(!reached.contains(networking), "AppModel reaches \(networking)")
        }
        // The check itself can fail: the runtime does reach libcurl.
        #expect(Self.closure(of: "AppRuntime", in: targets).contains("CCurl"))
    }

    /// The front ends draw and read what the program's state says: the library on disk is the
    /// runtime's, reached through its effects, never read by a front end itself.
    @Test func theFrontEndsDoNotReachIntoTheLibrary() throws {
        let targets = try Self.targets()
        for frontEnd in ["TerminalUI", "PlainUI"] {
            #expect(targets[frontEnd] != nil, "Package.swift names \(frontEnd)")
            #expect(targets[frontEnd]?.contains("OfflineLibrary") == false, "\(frontEnd) depends on OfflineLibrary")
        }
    }

    /// The renderer turns the state into a frame and nothing more: it reaches neither the network,
    /// nor the library on disk, nor the runtime that performs effects.
    @Test func theRendererReachesNeitherTheNetworkNorTheLibrary() throws {
        let targets = try Self.targets()
        #expect(targets["TerminalRender"] != nil, "Package.swift names the TerminalRender target")
        let reached = Self.closure(of: "TerminalRender", in: targets)
        for outside in ["CCurl", "HTTP", "ArcGISPortal", "OfflineLibrary", "AppRuntime", "EventLoop", "CCurses", "SignIn"] {
            #expect(!reached.contains(outside), "TerminalRender reaches \(outside)")
        }
        #expect(Self.closure(of: "TerminalUI", in: targets).contains("CCurses"), "the check can fail")
    }

    /// The command line's commands are thin over the services: only those that run the browser's
    /// program (`browse`, `open`, and `snapshot`, which draws its screen) import its model, runtime
    /// or front ends.
    @Test func theCommandsImportNeitherTheBrowsersRuntimeNorItsModel() throws {
        let folder = Self.root.appendingPathComponent("Sources/mapbook")
        let browser: Set = ["BrowseCommand.swift", "OpenCommand.swift", "SnapshotCommand.swift"]
        let importLine = try Regex(#"(?m)^import (AppModel|AppRuntime|TerminalUI|TerminalRender|PlainUI)$"#)
        var offending: [String] = []
        var read = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            read += 1
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let imported = text.matches(of: importLine).compactMap { $0.output[1].substring.map(String.init) }
            if !browser.contains(file), !imported.isEmpty { offending.append("\(file) imports \(imported.joined(separator: ", "))") }
            if browser.contains(file) { #expect(!imported.isEmpty, "\(file) runs the browser's program, so the check can fail") }
        }
        #expect(read > 20, "Sources/mapbook holds the commands")
        let services = Self.closure(of: "MapbookServices", in: try Self.targets())
        #expect(!services.isEmpty && services.isDisjoint(with: ["AppModel", "AppRuntime"]), "the services sit below the model and the runtime")
        #expect(offending.isEmpty, "\(offending.sorted().joined(separator: "; "))")
    }

    /// Importing a module the target does not declare builds only by luck of the build order.
    @Test func everyTargetDeclaresTheModulesItImports() throws {
        let targets = try Self.targets()
        let importLine = try Regex(#"(?m)^(?:@testable )?import (\w+)"#)
        var undeclared: [String] = []
        for (name, dependencies) in targets {
            let folder = ["Sources", "Tests"].map { Self.root.appendingPathComponent("\($0)/\(name)") }
                .first { FileManager.default.fileExists(atPath: $0.path) }
            guard let folder, let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for match in text.matches(of: importLine) {
                    let module = String(match.output[1].substring ?? "")
                    if targets[module] != nil, module != name, !dependencies.contains(module) { undeclared.append("\(name)/\(file) imports \(module)") }
                }
            }
        }
        #expect(undeclared.isEmpty, "\(undeclared.sorted().joined(separator: "; "))")
    }
}
