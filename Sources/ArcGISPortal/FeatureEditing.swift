import ArcGISModel
import Foundation
import MapbookCore

/// What a feature service layer says of editing it: which edits its capabilities allow, and the
/// field that holds GlobalIDs.
public struct EditableLayerInfo: Sendable, Equatable {
    public var name: String
    public var capabilities: EditCapabilities
    public var globalIDField: String?
    public var objectIDField: String

    public init(json: JSONValue) {
        objectIDField = json["objectIdField"]?.string.flatMap { $0.isEmpty ? nil : $0 }
            ?? (json["fields"]?.array ?? []).first { $0["type"]?.string == "esriFieldTypeOID" }?["name"]?.string ?? "OBJECTID"
        name = TerminalText.sanitizedLine(json["name"]?.string ?? "The layer", maxLength: 80)
        capabilities = EditCapabilities(json: json)
        globalIDField = json["globalIdField"]?.string.flatMap { $0.isEmpty ? nil : $0 }
            ?? (json["fields"]?.array ?? []).first { $0["type"]?.string == "esriFieldTypeGlobalID" }?["name"]?.string
    }
}

/// The feature service operations a sync uses: a layer's description, which GlobalIDs a layer
/// holds, and `applyEdits`.
extension PortalClient {
    /// How many GlobalIDs one `query` asks about: they go in the address.
    public static let globalIDsPerQuery = 50

    /// The layer's description, as far as editing goes.
    public func editableLayer(_ url: URL) async throws -> EditableLayerInfo {
        await learnFederation(of: url)
        return EditableLayerInfo(json: try await getJSON(url, [], query: []))
    }

    /// The features of the layer at `url` with these GlobalIDs, by GlobalID (upper-cased): their
    /// values, asked in batches. Features not asked about are ignored.
    public func heldFeatures(_ ids: [String], layer url: URL, field: String) async throws -> [String: [String: JSONValue]] {
        var held: [String: [String: JSONValue]] = [:]
        for start in stride(from: 0, to: ids.count, by: Self.globalIDsPerQuery) {
            let batch = Array(ids[start..<min(start + Self.globalIDsPerQuery, ids.count)])
            guard let clause = Self.globalIDClause(batch, field: field) else { continue }
            let json = try await getJSON(url, ["query"], query: [("where", clause), ("outFields", "*"), ("returnGeometry", "false")])
            guard let features = json["features"] else { throw FeatureServiceError("\(url.host ?? "The service") did not answer which features it holds.") }
            let asked = Set(batch.map { $0.uppercased() })
            for feature in features.array {
                guard let attributes = feature["attributes"]?.object, let id = attributes[field]?.string?.uppercased(), asked.contains(id) else { continue }
                held[id] = attributes
            }
        }
        return held
    }

    /// The values of the feature with this object id in the layer at `url`, when it holds one.
    public func feature(objectID: Int64, layer url: URL) async throws -> [String: JSONValue]? {
        await learnFederation(of: url)
        let json = try await getJSON(url, ["query"], query: [("objectIds", String(objectID)), ("outFields", "*"), ("returnGeometry", "false")])
        guard let features = json["features"] else { throw FeatureServiceError("\(url.host ?? "The service") did not answer with the feature.") }
        return features.array.first?["attributes"]?.object
    }

    /// Which of `ids` the layer at `url` holds (upper-cased).
    public func heldGlobalIDs(_ ids: [String], layer url: URL, field: String) async throws -> Set<String> {
        Set(try await heldFeatures(ids, layer: url, field: field).keys)
    }

    /// `GlobalID IN ('{…}', …)`, with only GlobalIDs' characters let through, so nothing typed
    /// reaches the service's SQL; nil when none is left.
    static func globalIDClause(_ ids: [String], field: String) -> String? {
        let safe = ids.filter { id in id.count <= 40 && id.allSatisfy { $0.isHexDigit || "{}-".contains($0) } }
        guard !safe.isEmpty, !field.isEmpty, field.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return "\(field) IN (\(safe.map { "'\($0)'" }.joined(separator: ", ")))"
    }

    /// The longest one `applyEdits` may take: a server that never answers ends in a sentence.
    public static let applyEditsDeadline = Duration.seconds(120)

    /// `applyEdits` on the service at `serviceURL` (a POST): `edits` as `EditSync.editsParameter`
    /// makes it, GlobalIDs used, each edit applied or refused on its own. The answer as sent.
    public func applyEdits(service serviceURL: URL, edits: JSONValue) async throws -> JSONValue {
        await learnFederation(of: serviceURL)
        var request = formPost(base: serviceURL, ["applyEdits"], form: [
            ("edits", edits.compactText), ("useGlobalIds", "true"), ("rollbackOnFailure", "false"),
        ])
        request.deadline = Self.applyEditsDeadline
        let answer = try await getJSON(request, about: nil)
        guard case .array = answer else {
            throw FeatureServiceError("\(serviceURL.host ?? "The service") answered the edits with something other than their results.")
        }
        return answer
    }
}

/// A feature's attachment as its service lists it.
public struct AttachmentInfo: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var size: Int64
}

extension PortalClient {
    /// `{layer}/{objectId}/attachments`: the files a feature has on the service.
    public func attachmentInfos(layer url: URL, objectID: Int64) async throws -> [AttachmentInfo] {
        let json = try await getJSON(url, [String(objectID), "attachments"], query: [])
        guard let infos = json["attachmentInfos"] else { throw FeatureServiceError("\(url.host ?? "The service") did not list the feature's attachments.") }
        return infos.array.prefix(10_000).compactMap { info in
            guard let id = info["id"]?.int64 else { return nil }
            return AttachmentInfo(id: id, name: TerminalText.sanitizedLine(info["name"]?.string ?? "", maxLength: 200), size: info["size"]?.int64 ?? -1)
        }
    }

    /// `addAttachment` (a multipart POST of one file): the service's id for it, or its reason for
    /// refusing it.
    public func addAttachment(layer url: URL, objectID: Int64, name: String, contentType: String, data: Data) async throws -> Result<Int64?, FeatureServiceError> {
        let boundary = "mapbook-" + UUID().uuidString
        var request = request(base: url, [String(objectID), "addAttachment"], query: [])
        request.method = "POST"
        request.headers.append(("Content-Type", "multipart/form-data; boundary=\(boundary)"))
        // The name goes in a quoted header: quotes, backslashes and line breaks are left out of it.
        let safeName = name.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline }
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\njson\r\n".utf8)
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"\(safeName)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8)
        body += data
        body += Data("\r\n--\(boundary)--\r\n".utf8)
        request.body = body
        request.deadline = Self.applyEditsDeadline
        // An attachment sent twice is kept twice: the sync looks on the server before sending again.
        request.mayRetry = false
        let json = try await getJSON(request, about: nil)
        guard let result = json["addAttachmentResult"] else {
            throw FeatureServiceError("\(url.host ?? "The service") answered the attachment with something other than its result.")
        }
        guard result["success"]?.bool == true else {
            let reason = result["error"]?["description"]?.string ?? "The server refused it and did not say why."
            return .failure(FeatureServiceError(TerminalText.sanitizedLine(reason, maxLength: 300)))
        }
        return .success(result["objectId"]?.int64)
    }
}

/// What `synchronizeReplica` brought down: per service layer id, the features added, changed and
/// deleted (by GlobalID) since the generation asked from, and the server's generation now.
public struct ReplicaChanges: Sendable {
    public struct Layer: Sendable {
        public var adds: [JSONValue]
        public var updates: [JSONValue]
        public var deletedGlobalIDs: [String]
    }

    public var generation: Int64
    public var layers: [Int: Layer]
}

extension PortalClient {
    /// The most features one download may bring: a server that never stops sending is cut short.
    public static let largestReplicaDownload = 200_000

    /// `synchronizeReplica` with `syncDirection=download`, `async=false`, `dataFormat=json` and the
    /// edits embedded: the changes to the replica's layers after `generation`.
    public func synchronizeReplica(service serviceURL: URL, replicaID: String, generation: Int64) async throws -> ReplicaChanges {
        await learnFederation(of: serviceURL)
        var request = formPost(base: serviceURL, ["synchronizeReplica"], form: [
            ("replicaID", replicaID), ("replicaServerGen", String(generation)), ("syncDirection", "download"),
            ("transportType", "esriTransportTypeEmbedded"), ("async", "false"), ("dataFormat", "json"), ("rollbackOnFailure", "true"),
        ])
        request.deadline = Self.applyEditsDeadline
        let json = try await getJSON(request, about: nil)
        let host = serviceURL.host ?? "The service"
        guard let now = json["replicaServerGen"]?.int64, now >= 0, case .array(let edits)? = json["edits"] ?? .array([]) else {
            throw FeatureServiceError("\(host) answered the replica's sync without its changes and generation.")
        }
        var layers: [Int: ReplicaChanges.Layer] = [:], count = 0
        for entry in edits {
            guard let id = entry["id"]?.int64, let layer = Int(exactly: id), let features = entry["features"] else { continue }
            let changes = ReplicaChanges.Layer(adds: features["adds"]?.array ?? [], updates: features["updates"]?.array ?? [],
                                               deletedGlobalIDs: (features["deleteIds"]?.array ?? []).compactMap(\.string))
            count += changes.adds.count + changes.updates.count + changes.deletedGlobalIDs.count
            guard count <= Self.largestReplicaDownload else {
                throw FeatureServiceError("\(host) sent more than \(Format.grouped(Self.largestReplicaDownload)) changes at once; download the area again.")
            }
            layers[layer] = changes
        }
        return ReplicaChanges(generation: now, layers: layers)
    }
}
