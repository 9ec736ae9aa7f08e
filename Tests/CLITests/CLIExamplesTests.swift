import Foundation
@testable import mapbook
import Testing

/// The commands the documentation shows are commands mapbook takes: every `mapbook …` in a
/// shell block of docs/cli.md and README.md parses, options and values as written.
@Suite struct CLIExamplesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `mapbook …` commands of a Markdown file's ```sh blocks, as argument lists: each
    /// segment of a line between `&&` and `|`, `swift run` left off.
    static func examples(in file: String) throws -> [[String]] {
        let text = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
        var inShell = false, commands: [[String]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inShell = line == "```sh"; continue }
            guard inShell else { continue }
            for segment in line.replacingOccurrences(of: "&&", with: "|").split(separator: "|") {
                var words = shellWords(String(segment))
                if words.starts(with: ["swift", "run"]) { words.removeFirst(2) }
                if words.first == "mapbook" { commands.append(Array(words.dropFirst())) }
            }
        }
        return commands
    }

    /// Words as a POSIX shell splits them, for the quoting the docs use ('…' and "…").
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = [], word = "", quote: Character?, started = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character; started = true
            } else if character == " " {
                if started || !word.isEmpty { words.append(word) }
                word = ""; started = false
            } else {
                word.append(character)
            }
        }
        if started || !word.isEmpty { words.append(word) }
        return words
    }

    @Test func theSplitterKeepsQuotedWordsWhole() {
        #expect(Self.shellWords(#"mapbook download Bangor "Greater Portland" --faults 'a=1,b=2'"#)
                == ["mapbook", "download", "Bangor", "Greater Portland", "--faults", "a=1,b=2"])
    }

    @Test(arguments: ["docs/cli.md", "README.md", "docs/fleet.md"])
    func everyDocumentedCommandParses(file: String) throws {
        let commands = try Self.examples(in: file)
        #expect(commands.count >= (file == "docs/cli.md" ? 30 : 1), "\(file) lost its examples")
        for arguments in commands {
            #expect(throws: Never.self, "mapbook \(arguments.joined(separator: " "))") {
                _ = try Mapbook.parseAsRoot(Mapbook.withPointLast(arguments))
            }
        }
    }

    /// A command that does not parse is caught: the test above can fail.
    @Test func aWrongCommandIsCaught() {
        #expect(throws: (any Error).self) { _ = try Mapbook.parseAsRoot(["download", "--everything"]) }
        #expect(throws: (any Error).self) { _ = try Mapbook.parseAsRoot(["pins", "add", "--at"]) }
    }
}
