import ArcGISPortal
import ArgumentParser
import Foundation
import SignIn
import MapbookAssets
import HTTP
import MapbookCore
import OfflineLibrary
import TileFormats
import ArcGISModel
import Geodatabase
import MobilePackages
import Geometry
import Places
import UserFiles
import LibraryModel
import MapbookServices
import Editing

/// Printing: aligned tables for people, stable JSON for scripts, and one sentence for any failure.
enum Output {
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        write(data + Data("\n".utf8))
    }

    static func line(_ text: String = "") { write(Data((text + "\n").utf8)) }

    /// "mapbook: …" on standard error, for what could not be done while the rest was: one clean line,
    /// since problems carry names from packages and servers.
    static func problem(_ text: String) {
        standardError("mapbook: " + TerminalText.sanitizedLine(text, maxLength: 500))
    }

    /// A line (or, without `newline`, a prompt) on standard error.
    static func standardError(_ text: String, newline: Bool = true) {
        write(Data((text + (newline ? "\n" : "")).utf8), to: STDERR_FILENO)
    }

    /// One JSON object on one line (keys sorted): the unit of a JSON-lines stream.
    static func jsonLine(_ fields: [String: JSONValue]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(JSONValue.object(fields)) else { return }
        write(data + Data("\n".utf8))
    }

    /// Everything for standard output goes through here, unbuffered and in order. When the reader
    /// has gone (`mapbook … | head`), stop quietly with the status a SIGPIPE death would give.
    static func write(_ data: Data, to descriptor: Int32 = STDOUT_FILENO) {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var done = 0
            while done < bytes.count {
                let n = Foundation.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if n < 0, errno == EINTR { continue }
                // The reader is gone: end as a shell's SIGPIPE would, at once (not `exit`, whose
                // teardown races the threads still running; the interrupt handler says why).
                if n < 0, errno == EPIPE { _exit(128 + SIGPIPE) }
                if n <= 0 { return }
                done += n
            }
        }
    }

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

    /// Reports `error` and ends the command: JSON on stdout with `--json` (one line, so that it also
    /// fits a stream of JSON lines), a sentence on stderr otherwise.
    static func fail(_ error: any Error, json: Bool) -> ExitCode {
        let sentence = error.userSentence
        if json {
            jsonLine(["error": errorObject(error)])
        } else {
            write(Data("mapbook: \(sentence)\n".utf8), to: STDERR_FILENO)
        }
        return exitStatus(ofKind: kind(of: error))
    }

    /// `{"kind","message"}`: an error as every command's JSON gives it.
    static func errorObject(_ error: any Error) -> JSONValue {
        .object(["kind": .string(kind(of: error)), "message": .string(error.userSentence)])
    }

    /// The exit status of each kind of error, as docs/cli.md's table gives it: one rule for every command.
    static func exitStatus(ofKind kind: String) -> ExitCode {
        switch kind {
        case "unreachable": ExitCode(3)
        case "signIn": ExitCode(4)
        case "usage": ExitCode(64)
        default: .failure
        }
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
        if let package = error as? TileFormatError {
            if case .cannotOpen = package { return "cannotOpen" }
            return "badPackage"
        }
        if error is MobilePackageError || error is GeodatabaseError { return "badPackage" }
        if let library = error as? LibraryError {
            switch library {
            case .noSuchArea: return "noSuchArea"
            case .ambiguousArea: return "ambiguousArea"
            case _ where library.isDiskFull: return "diskFull"
            case .busy: return "busy"
            default: return "library"
            }
        }
        if error is MirrorStageError || error is MirrorError { return "mirror" }
        if error is NoSuchBasemap { return "noSuchBasemap" }
        if error is UnknownPlace || error is RoutePlanner.UnknownStop { return "noSuchPlace" }
        if let failure = error as? RouteFailure {
            return failure.problem.needsSignIn ? "signIn" : failure.problem.network.isCutOff ? "unreachable" : "route"
        }
        if error is PinError { return "pin" }
        if error is EditRefused || error is FieldProblem { return "invalidEdit" }
        if error is EditJournalError { return "journal" }
        if error is any UsageError || error is CRSOption.Problem { return "usage" }
        if let problem = error as? WhereError { return problem.kind }
        if error is SignInError || error is CredentialError { return "signIn" }
        if let command = error as? PackageCommandError {
            switch command {
            case .noTile: return "noTile"
            case .notVector: return "notVector"
            case .terminal, .chooseLayer: return "usage"
            case .noLayer, .noField: return "noSuchLayer"
            case .unreadable, .notAPackage: return "badPackage"
            case .badBox, .badCondition: return "usage"
            }
        }
        return "internal"
    }

    /// Display text from the network: one line, no control characters, at most `width` characters.
    static func cell(_ text: String?, width: Int = 40) -> String {
        TerminalText.sanitizedLine(text ?? "", maxLength: width)
    }
}

/// JSON building blocks for command output: absent values become `null`, so every key is always
/// present; strings from the portal are sanitized.
extension JSONValue {
    static func text(_ value: String?, width: Int = 512) -> JSONValue {
        value.map { .string(Output.cell($0, width: width)) } ?? .null
    }

    static func date(_ value: Date?) -> JSONValue { value.map { .string(Format.timestamp($0)) } ?? .null }

    static func count(_ value: Int64?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }

    static func extent(_ value: GeoExtent?) -> JSONValue {
        guard let e = value else { return .null }
        return .object(["xmin": .number(e.xmin), "ymin": .number(e.ymin), "xmax": .number(e.xmax), "ymax": .number(e.ymax)])
    }

    /// An item's fields, as `mapbook info --json` prints them (see docs/cli.md).
    static func item(_ item: PortalItem) -> JSONValue {
        .object([
            "id": .string(item.id.rawValue),
            "title": .text(item.title),
            "type": .text(item.type, width: 128),
            "typeKeywords": .array(item.typeKeywords.map { .text($0, width: 128) }),
            "owner": .text(item.owner, width: 128),
            "snippet": .text(item.snippet, width: 2048),
            "description": item.description.map { .string(TerminalText.sanitizedParagraphs(HTMLText.plainText($0))) } ?? .null,
            "thumbnail": .text(item.thumbnail),
            "extent": .extent(item.extent),
            "created": .date(item.created),
            "modified": .date(item.modified),
            "size": .count(item.size),
            "access": .text(item.access, width: 64),
            "url": .text(item.url, width: 2048),
            "tags": .array(item.tags.map { .text($0, width: 128) }),
        ])
    }
}

/// `LON,LAT` as the commands take a point.
enum Coordinates {
    /// `--near`: a point, or the name of a place on this device (the downloaded packages' names and
    /// the bundled places; "Bangor, Maine" to say which): one of that name — in a downloaded package
    /// before the gazetteer's, then the most prominent — else the best whose name starts so. Never
    /// a guess at a typo: a point to search near must be the one meant.
    static func near(_ text: String, library: OfflineLibrary) throws -> GeoPoint {
        if let point = GeoPoint(parsing: text) { return point }
        let index = PlaceIndex(places: library.downloadedPlaceNames() + MapbookAssets.placeNames())
        let wanted = PlaceIndex.fold(text.trimmingCharacters(in: .whitespaces))
        let found = wanted.isEmpty ? [] : index.search(text, limit: 50)
        let named = found.filter { PlaceIndex.fold($0.name) == wanted || PlaceIndex.fold($0.title) == wanted }
        guard let place = named.min(by: { ($0.source == .package ? 0 : 1, $0.rank) < ($1.source == .package ? 0 : 1, $1.rank) })
                ?? found.first(where: { PlaceIndex.fold($0.title).hasPrefix(wanted) }) else {
            throw UnknownPlace(userMessage: "No place called “\(Output.cell(text, width: 60))” is known on this device; give --near as LON,LAT.")
        }
        return place.point
    }

}

/// `--near` named a place this device does not know.
struct UnknownPlace: UserFacingError {
    let userMessage: String
}
