import CProj
import Foundation
import MapbookCore
import Synchronization

/// Why a coordinate system cannot be used, as the end of a sentence: "wkid 99999 is not a
/// coordinate system PROJ knows".
public struct CoordinateSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
    /// "<what> is in a coordinate system mapbook cannot use: <reason>", without its full stop: the
    /// one wording for a layer, a package and a web map.
    public func clause(about what: String) -> String { "\(what) is in a coordinate system mapbook cannot use: \(reason)" }
}

/// A transformation between two coordinate systems, performed by PROJ: the best operation PROJ
/// has with the grids installed (`proj-data`), never one fetched from the network. Coordinates are
/// always x east and y north (longitude, latitude for geographic systems, in degrees), whatever
/// axis order the authority defines. A point PROJ cannot transform (outside the system's area, a
/// grid missing) comes back as infinity: callers check `isFinite`.
public final class CoordinateTransform: @unchecked Sendable {
    // PROJ's objects are not safe to use from two threads at once: every use holds the lock.
    private let lock = Mutex(())
    private let context: OpaquePointer
    private let operation: OpaquePointer
    /// The source system's name as PROJ has it ("NAD83(HARN) / Virginia North (ftUS)").
    public let sourceName: String
    /// Where the longitude and latitude on the WGS 84 side (the target's, or the source's) may lie:
    /// the other system's area of use, widened by `reachMargin`. A projection gives some point for
    /// any x and y; one far outside the system's area is a wrong picture, so it is no point.
    private let reach: (west: Double, south: Double, east: Double, north: Double)?
    /// Whether `reach` bounds the source's points (a transformation from WGS 84) or the target's.
    private let reachBoundsSource: Bool
    static let reachMargin = 10.0

    private init(source: SpatialReference, target: SpatialReference) throws(CoordinateSystemError) {
        guard let context = mb_proj_context_create() else {
            throw CoordinateSystemError("PROJ is not on this machine (Debian's libproj25), or could not start")
        }
        // PROJ would write its errors to standard error, over the screen; they are asked for instead.
        mb_proj_log_level(context, PJ_LOG_NONE)
        mb_proj_context_set_enable_network(context, 0)
        do throws(CoordinateSystemError) {
            let from = try Self.crs(source, context: context)
            defer { mb_proj_destroy(from) }
            let to = try Self.crs(target, context: context)
            defer { mb_proj_destroy(to) }
            guard let found = mb_proj_create_crs_to_crs_from_pj(context, from, to) else {
                throw CoordinateSystemError("PROJ has no way from \(source.identified) to \(target.identified)")
            }
            defer { mb_proj_destroy(found) }
            guard let normalized = mb_proj_normalize_for_visualization(context, found) else {
                throw CoordinateSystemError("PROJ cannot order the axes of \(source.identified)")
            }
            operation = normalized
            sourceName = Self.name(from) ?? source.identified
            reach = target.isWGS84 ? Self.area(of: from, context: context) : source.isWGS84 ? Self.area(of: to, context: context) : nil
            reachBoundsSource = source.isWGS84
        } catch {
            mb_proj_context_destroy(context)
            throw error
        }
        self.context = context
    }

    deinit {
        mb_proj_destroy(operation)
        mb_proj_context_destroy(context)
    }

    /// Longer than any real coordinate system's WKT (ArcGIS's own are under 2 KB).
    public static let mostWKTBytes = 16_384

    /// A coordinate reference system from what the data says: its codes (latest first, each as an
    /// EPSG code and then an Esri one, Web Mercator's Esri aliases as EPSG:3857), then its WKT.
    private static func crs(_ reference: SpatialReference, context: OpaquePointer) throws(CoordinateSystemError) -> OpaquePointer {
        var definitions: [String] = []
        for code in [reference.latestWkid, reference.wkid].compactMap({ $0 }) where code > 0 && code < 1 << 31 {
            if SpatialReference(wkid: code).isWebMercator { definitions.append("EPSG:3857"); continue }
            definitions += ["EPSG:\(code)", "ESRI:\(code)"]
        }
        if let wkt = reference.wkt {
            guard wkt.utf8.count <= mostWKTBytes else {
                throw CoordinateSystemError("its WKT is \(Format.bytes(Int64(wkt.utf8.count))), longer than any coordinate system's")
            }
            definitions.append(wkt)
        }
        guard !definitions.isEmpty else { throw CoordinateSystemError("the data names no coordinate system") }
        for definition in definitions {
            guard let object = mb_proj_create(context, definition) else { continue }
            if mb_proj_is_crs(object) != 0 { return object }
            mb_proj_destroy(object)
        }
        if reference.wkid == nil, reference.latestWkid == nil {
            let said = TerminalText.sanitizedLine(mb_proj_error(context).map { String(cString: $0) } ?? "", maxLength: 120)
            throw CoordinateSystemError("PROJ cannot read its WKT\(said.isEmpty ? "" : " (\(said))")")
        }
        throw CoordinateSystemError("\(reference.identified) is not a coordinate system PROJ knows")
    }

    private static func area(of crs: OpaquePointer, context: OpaquePointer) -> (west: Double, south: Double, east: Double, north: Double)? {
        var west = 0.0, south = 0.0, east = 0.0, north = 0.0
        guard mb_proj_get_area_of_use(context, crs, &west, &south, &east, &north) != 0,
              [west, south, east, north].allSatisfy({ $0.isFinite && $0 > -1000 }) else { return nil }
        let m = reachMargin
        return (west - m, south - m, east + m, north + m)
    }

    /// Longitude and latitude outside the source system's reach become infinity.
    private func reached(_ x: Double, _ y: Double) -> Bool {
        guard let reach else { return true }
        // An area across the antimeridian (west > east) is checked on latitude alone.
        let inLongitude = reach.west > reach.east || (x >= reach.west && x <= reach.east)
        return inLongitude && y >= reach.south && y <= reach.north
    }

    private static func name(_ crs: OpaquePointer) -> String? {
        guard let name = mb_proj_get_name(crs) else { return nil }
        let line = TerminalText.sanitizedLine(String(cString: name), maxLength: 120)
        return line.isEmpty || line == "unknown" || line == "unnamed" ? nil : line
    }

    /// One point, source to target.
    public func callAsFunction(x: Double, y: Double) -> (x: Double, y: Double) { transform(x, y, PJ_FWD) }

    /// One point, target back to source.
    public func inverse(x: Double, y: Double) -> (x: Double, y: Double) { transform(x, y, PJ_INV) }

    /// Many points at once, in place: one call into PROJ for the lot.
    public func transform(xs: inout [Double], ys: inout [Double], inverse: Bool = false) {
        let count = min(xs.count, ys.count)
        guard count > 0 else { return }
        // Points from WGS 84 outside the target's reach are none, whatever PROJ makes of them.
        let outside = !inverse && reachBoundsSource && reach != nil ? (0..<count).filter { !reached(xs[$0], ys[$0]) } : []
        lock.withLock { _ in
            xs.withUnsafeMutableBufferPointer { x in
                ys.withUnsafeMutableBufferPointer { y in
                    mb_proj_trans_many(operation, inverse ? PJ_INV : PJ_FWD, x.baseAddress, y.baseAddress, count)
                }
            }
        }
        for i in outside { xs[i] = .infinity; ys[i] = .infinity }
        guard !inverse, reach != nil, !reachBoundsSource else { return }
        for i in 0..<count where !reached(xs[i], ys[i]) { xs[i] = .infinity; ys[i] = .infinity }
    }

    private func transform(_ x: Double, _ y: Double, _ direction: PJ_DIRECTION) -> (x: Double, y: Double) {
        guard x.isFinite, y.isFinite, direction == PJ_INV || !reachBoundsSource || reached(x, y) else { return (.infinity, .infinity) }
        var outX = x, outY = y
        lock.withLock { _ in mb_proj_trans(operation, direction, &outX, &outY) }
        guard outX.isFinite, outY.isFinite, direction == PJ_INV || reachBoundsSource || reached(outX, outY) else { return (.infinity, .infinity) }
        return (outX, outY)
    }

    private struct Pair: Hashable { var source: SpatialReference, target: SpatialReference }
    private static let made = Mutex([Pair: Result<CoordinateTransform, CoordinateSystemError>]())
    /// More than a session meets; past it the oldest are let go (PROJ's objects are a few KB each).
    private static let mostKept = 64

    /// The transformation from `source` to `target`, made once and kept: finding PROJ's best
    /// operation reads its database, which takes milliseconds.
    public static func between(_ source: SpatialReference, _ target: SpatialReference) throws(CoordinateSystemError) -> CoordinateTransform {
        let pair = Pair(source: source, target: target)
        if let known = made.withLock({ $0[pair] }) { return try known.get() }
        let result: Result<CoordinateTransform, CoordinateSystemError>
        do { result = .success(try CoordinateTransform(source: source, target: target)) } catch { result = .failure(error) }
        made.withLock { kept in
            if kept.count >= mostKept { kept.removeAll() }
            kept[pair] = result
        }
        return try result.get()
    }
}

extension SpatialReference {
    /// Whether PROJ has a transformation to longitude and latitude for it; the reason when not.
    public var problem: CoordinateSystemError? {
        if isWGS84 || isWebMercator { return nil }
        do { _ = try CoordinateTransform.between(self, .wgs84); return nil } catch { return error }
    }

    /// Brings a point of this reference to WGS 84 longitude/latitude (infinite where PROJ cannot);
    /// nil for a system PROJ cannot use (`problem` says why). Web Mercator and WGS 84 are worked
    /// out here: they are most of what mapbook draws, and PROJ costs more for them (docs/benchmarks.md).
    public var geographicPoint: (@Sendable (_ x: Double, _ y: Double) -> GeoPoint)? {
        if isWGS84 { return { GeoPoint(longitude: $0, latitude: $1) } }
        if isWebMercator {
            return { let p = WebMercator.geographic(x: $0, y: $1); return GeoPoint(longitude: p.longitude, latitude: p.latitude) }
        }
        guard let transform = try? CoordinateTransform.between(self, .wgs84) else { return nil }
        return { let p = transform(x: $0, y: $1); return GeoPoint(longitude: p.x, latitude: p.y) }
    }

    /// What people call it, from PROJ's database; nil when PROJ does not know it.
    public var name: String? {
        if isWGS84 { return "WGS 84" }
        if isWebMercator { return "Web Mercator" }
        return try? CoordinateTransform.between(self, .wgs84).sourceName
    }

    /// "NAD83 / MTM zone 7 (wkid 32187)", or "wkid N" alone.
    public var summary: String { name.map { "\($0) (\(identified))" } ?? identified }

    /// "wkid N", without asking PROJ for a name.
    var identified: String { code.map { "wkid \($0)" } ?? (wkt == nil ? "an unnamed spatial reference" : "a spatial reference given as WKT") }
}

/// A coordinate system a user names on the command line (`--crs`): `EPSG:2924`, `ESRI:102003` or `2924`.
public struct NamedCoordinateSystem: Sendable, Equatable {
    public let authority: String
    public let code: Int

    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        let authority = parts.count == 2 ? parts[0].uppercased() : "EPSG"
        guard parts.count <= 2, ["EPSG", "ESRI"].contains(authority), let code = parts.last.flatMap({ Int($0) }),
              code > 0, code < Int(Int32.max) else { return nil }
        self.authority = authority; self.code = code
    }

    /// How GeoJSON's `crs` member names it (GDAL reads it).
    public var urn: String { "urn:ogc:def:crs:\(authority)::\(code)" }

    /// The transformation from WGS 84 into it, or the sentence that says why it cannot be used.
    public static func fromWGS84(_ text: String) throws(CoordinateSystemError) -> (system: NamedCoordinateSystem, transform: CoordinateTransform) {
        guard let system = NamedCoordinateSystem(text) else {
            throw CoordinateSystemError("“\(TerminalText.sanitizedLine(text, maxLength: 40))” is not a code such as EPSG:2924")
        }
        return (system, try CoordinateTransform.between(.wgs84, SpatialReference(wkid: system.code)))
    }
}
