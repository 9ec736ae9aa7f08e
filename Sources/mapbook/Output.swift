import ArcGISPortal
import ArgumentParser
import Foundation
import HTTP
import MapbookCore

/// Printing: aligned tables for people, stable JSON for scripts, and one sentence for any failure.
enum Output {
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func line(_ text: String = "") { print(text) }

    /// Columns padded to their widest cell; the last column is not padded.
    static func table(_ header: [String], _ rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                let cell = row[column], pad = String(repeating: " ", count: widths[column] - cell.count)
                if column == row.count - 1 { return rightAligned.contains(column) ? pad + cell : cell }
                return rightAligned.contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }
    }

    /// Reports `error` and ends the command: JSON on stdout with `--json`, a sentence on stderr otherwise.
    static func fail(_ error: any Error, json: Bool) -> ExitCode {
        let sentence = error.userSentence
        if json {
            try? Output.json(["error": ["kind": kind(of: error), "message": sentence]])
        } else {
            FileHandle.standardError.write(Data("mapbook: \(sentence)\n".utf8))
        }
        return (error as? HTTPError)?.isUnreachable == true ? ExitCode(3) : ExitCode.failure
    }

    /// A stable machine-readable name for the error's kind (documented in docs/cli.md).
    static func kind(of error: any Error) -> String {
        if let http = error as? HTTPError {
            switch http {
            case .cannotResolveHost, .cannotConnect, .timedOut: return "unreachable"
            case .status: return "httpStatus"
            case .tls: return "tls"
            case .cancelled: return "cancelled"
            default: return "transfer"
            }
        }
        if let portal = error as? PortalError {
            switch portal.kind {
            case .notFound: return "notFound"
            case .noAccess: return "noAccess"
            case .tokenRequired: return "tokenRequired"
            case .invalidToken: return "invalidToken"
            case .serverError: return "serverError"
            case .rejected: return "rejected"
            case .malformedResponse: return "malformedResponse"
            case .wrongItemType: return "wrongItemType"
            }
        }
        return "internal"
    }

    /// Display text from the network: one line, no control characters, at most `width` characters.
    static func cell(_ text: String?, width: Int = 40) -> String {
        TerminalText.sanitizedLine(text ?? "", maxLength: width)
    }
}

/// Item fields as JSON: sanitized strings, ISO 8601 dates, plain-text descriptions.
struct ItemJSON: Encodable {
    var id: String
    var title: String
    var type: String
    var typeKeywords: [String]
    var owner: String?
    var snippet: String?
    var description: String?
    var thumbnail: String?
    var extent: GeoExtent?
    var created: String?
    var modified: String?
    var size: Int64?
    var access: String?
    var url: String?
    var tags: [String]

    init(_ item: PortalItem) {
        id = item.id.rawValue
        title = Output.cell(item.title, width: 512)
        type = Output.cell(item.type, width: 128)
        typeKeywords = item.typeKeywords.map { Output.cell($0, width: 128) }
        owner = item.owner.map { Output.cell($0, width: 128) }
        snippet = item.snippet.map { Output.cell($0, width: 2048) }
        description = item.description.map { TerminalText.sanitizedParagraphs(HTMLText.plainText($0)) }
        thumbnail = item.thumbnail.map { Output.cell($0, width: 512) }
        extent = item.extent
        created = item.created.map(Format.timestamp)
        modified = item.modified.map(Format.timestamp)
        size = item.size
        access = item.access.map { Output.cell($0, width: 64) }
        url = item.url.map { Output.cell($0, width: 2048) }
        tags = item.tags.map { Output.cell($0, width: 128) }
    }

    enum CodingKeys: String, CodingKey {
        case id, title, type, typeKeywords, owner, snippet, description, thumbnail, extent, created, modified
        case size, access, url, tags
    }

    // Absent values are written as null so every key is always present.
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(title, forKey: .title); try c.encode(type, forKey: .type)
        try c.encode(typeKeywords, forKey: .typeKeywords); try c.encode(owner, forKey: .owner)
        try c.encode(snippet, forKey: .snippet); try c.encode(description, forKey: .description)
        try c.encode(thumbnail, forKey: .thumbnail); try c.encode(extent, forKey: .extent)
        try c.encode(created, forKey: .created); try c.encode(modified, forKey: .modified)
        try c.encode(size, forKey: .size); try c.encode(access, forKey: .access); try c.encode(url, forKey: .url)
        try c.encode(tags, forKey: .tags)
    }
}
