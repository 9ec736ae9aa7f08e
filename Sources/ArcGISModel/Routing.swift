import Foundation
import MapbookCore
import Geometry

/// A route service a portal offers (`portals/self` → `helperServices.route`).
public struct RouteService: Sendable, Equatable {
    public var url: URL
    /// `helperServices.routingUtilities`, which lists the travel modes, when the portal names one.
    public var utilities: URL?

    public init(url: URL, utilities: URL? = nil) { self.url = url; self.utilities = utilities }
}

/// A place on a route: where, and the name the directions use for it.
public struct RouteStop: Sendable, Equatable {
    public var name: String
    public var point: GeoPoint

    public init(name: String, point: GeoPoint) { self.name = name; self.point = point }
}

/// A travel mode the portal offers (`GetTravelModes`): its name, and the JSON the service takes.
public struct TravelMode: Sendable, Equatable {
    public var name: String
    public var json: String

    public init(name: String, json: String) { self.name = name; self.json = json }
}

/// The units the directions' lengths are given in (`directionsLengthUnits`).
public enum RouteUnits: String, Sendable, CaseIterable {
    case kilometers = "km", miles = "mi"

    /// A route's lengths in the user's system of units (the `units` setting).
    public init(_ units: DistanceUnits) { self = units == .imperial ? .miles : .kilometers }

    public var distanceUnits: DistanceUnits { self == .miles ? .imperial : .metric }

    public var serviceName: String { self == .kilometers ? "esriNAUKilometers" : "esriNAUMiles" }
    public var metres: Double { self == .kilometers ? 1000 : 1609.344 }

    /// "12.3 km", "0.4 mi", "3,039 mi": a length in these units.
    public func describe(_ length: Double) -> String {
        length >= 100 ? "\(Format.grouped(length.clampedInt(in: 0...Format.largestShown))) \(rawValue)" : String(format: "%.1f %@", length, rawValue)
    }
}

/// What a maneuver is: the kinds of `esriDirectionsManeuverType` a driver is told, grouped by the
/// glyph they are shown with.
public enum ManeuverKind: String, Sendable, CaseIterable {
    case depart, arrive, straight, bearLeft, bearRight, turnLeft, turnRight, sharpLeft, sharpRight, uTurn
    case rampLeft, rampRight, exit, merge, highwayChange, forkLeft, forkRight, roundabout, ferry, other

    /// The service's name for it (`esriDMTTurnLeft`); names mapbook does not know are `other`.
    public init(serviceName: String?) {
        let name = serviceName.map { Self.aliases[$0] ?? $0 }
        self = Self.allCases.first { $0.serviceName == name } ?? .other
    }

    /// The service's kinds that mapbook shows as another's glyph.
    private static let aliases = [
        "esriDMTTurnLeftLeft": "esriDMTTurnLeft", "esriDMTTurnLeftRight": "esriDMTTurnLeft",
        "esriDMTTurnRightRight": "esriDMTTurnRight", "esriDMTTurnRightLeft": "esriDMTTurnRight",
        "esriDMTForkCenter": "esriDMTForkLeft", "esriDMTEndOfFerry": "esriDMTFerry",
    ]

    /// The service's name, as the sample route service writes it.
    public var serviceName: String {
        switch self {
        case .depart: "esriDMTDepart"
        case .arrive: "esriDMTStop"
        case .straight: "esriDMTStraight"
        case .bearLeft: "esriDMTBearLeft"
        case .bearRight: "esriDMTBearRight"
        case .turnLeft: "esriDMTTurnLeft"
        case .turnRight: "esriDMTTurnRight"
        case .sharpLeft: "esriDMTSharpLeft"
        case .sharpRight: "esriDMTSharpRight"
        case .uTurn: "esriDMTUTurn"
        case .rampLeft: "esriDMTRampLeft"
        case .rampRight: "esriDMTRampRight"
        case .exit: "esriDMTHighwayExit"
        case .merge: "esriDMTHighwayMerge"
        case .highwayChange: "esriDMTHighwayChange"
        case .forkLeft: "esriDMTForkLeft"
        case .forkRight: "esriDMTForkRight"
        case .roundabout: "esriDMTRoundabout"
        case .ferry: "esriDMTFerry"
        case .other: "esriDMTUnknown"
        }
    }

    /// One terminal cell that says which way: arrows for turns, a flag for the end.
    public var glyph: String {
        switch self {
        case .depart: "◉"
        case .arrive: "◆"
        case .straight, .merge, .highwayChange: "↑"
        case .bearLeft, .rampLeft, .forkLeft: "↖"
        case .bearRight, .rampRight, .forkRight, .exit: "↗"
        case .turnLeft, .sharpLeft: "←"
        case .turnRight, .sharpRight: "→"
        case .uTurn: "↶"
        case .roundabout: "↻"
        case .ferry: "≈"
        case .other: "·"
        }
    }
}

/// One step of the directions: what to do, how far and how long until the next, and where.
public struct Maneuver: Sendable, Equatable {
    public var kind: ManeuverKind
    public var text: String
    /// In the route's units; 0 for the arrival.
    public var length: Double
    public var minutes: Double
    public var arrival: Date?
    /// The step's line (decoded from its compressed geometry); empty when the service sent none
    /// usable, and then the step is listed but not drawn.
    public var path: [GeoPoint]

    public init(kind: ManeuverKind, text: String, length: Double, minutes: Double, arrival: Date?, path: [GeoPoint]) {
        self.kind = kind; self.text = text; self.length = length; self.minutes = minutes; self.arrival = arrival; self.path = path
    }
}

/// A solved route: its line, its totals and its directions.
public struct Route: Sendable, Equatable {
    public var stops: [RouteStop]
    public var units: RouteUnits
    /// The route's line, its paths joined in order.
    public var path: [GeoPoint]
    public var length: Double
    public var minutes: Double
    public var extent: GeoExtent?
    public var maneuvers: [Maneuver]
    public var start: Date
    /// When the route was solved by name of mode (`travelMode`), else the service's default.
    public var modeName: String?

    public init(stops: [RouteStop], units: RouteUnits, path: [GeoPoint], length: Double, minutes: Double, extent: GeoExtent?,
                maneuvers: [Maneuver], start: Date, modeName: String? = nil) {
        self.stops = stops; self.units = units; self.path = path; self.length = length; self.minutes = minutes
        self.extent = extent; self.maneuvers = maneuvers; self.start = start; self.modeName = modeName
    }

    public var arrival: Date { start.addingTimeInterval(minutes * 60) }

    /// "128.7 mi · 2 h 01 min": a step's or the whole route's length and time, as listed.
    public func measure(length: Double, minutes: Double) -> String {
        "\(units.describe(length)) · \(Format.duration(minutes: minutes))"
    }

    /// The whole route's length and time.
    public var totals: String { measure(length: length, minutes: minutes) }

    /// What a step's row says after its text; nothing for the departure and the arrival.
    public func measure(of step: Maneuver) -> String? {
        step.kind == .arrive || step.kind == .depart ? nil : measure(length: step.length, minutes: step.minutes)
    }
}

/// The route could not be found, or the answer was unusable: one sentence.
public struct RouteError: UserFacingError, Equatable {
    public let userMessage: String
    public init(_ message: String) { userMessage = message }
}

/// Esri's compressed geometry (the `compressedGeometry` of each directions step): signed base-32
/// numbers (`0-9a-v`, each led by `+` or `-`). The first is the coordinate factor, then x and y as
/// running sums, each divided by the factor. The newer form starts `+0+1+<flags>` and carries Z
/// and M values after `|`, which a map line does not need.
public enum CompressedGeometry {
    public static func decode(_ text: String) throws -> [GeoPoint] {
        let body = text.split(separator: "|", omittingEmptySubsequences: false)[0]
        var numbers = try integers(body)
        if body.hasPrefix("+0") {
            guard numbers.count >= 3, numbers[1] == 1 else { throw RouteError("a step's compressed geometry is of a version mapbook does not read") }
            guard (0...3).contains(numbers[2]) else { throw RouteError("a step's compressed geometry has flags mapbook does not know") }
            numbers.removeFirst(3)
        }
        guard let factor = numbers.first, factor > 0, numbers.count % 2 == 1 else {
            throw RouteError("a step's compressed geometry is cut short")
        }
        var x = 0, y = 0, points: [GeoPoint] = []
        points.reserveCapacity(numbers.count / 2)
        for i in stride(from: 1, to: numbers.count, by: 2) {
            let (nx, ox) = x.addingReportingOverflow(numbers[i]), (ny, oy) = y.addingReportingOverflow(numbers[i + 1])
            guard !ox, !oy else { throw RouteError("a step's compressed geometry runs past any coordinate") }
            x = nx; y = ny
            let point = GeoPoint(longitude: Double(x) / Double(factor), latitude: Double(y) / Double(factor))
            guard abs(point.longitude) <= 180, abs(point.latitude) <= 90 else {
                throw RouteError("a step's compressed geometry leaves the map")
            }
            points.append(point)
        }
        return points
    }

    /// The old form, as route services send it in WGS84: factor 55,585 (about 2 m).
    public static func encode(_ points: [GeoPoint], factor: Int = 55_585) -> String {
        var text = base32(factor), x = 0, y = 0
        for point in points {
            let px = (point.longitude * Double(factor)).clampedInt(), py = (point.latitude * Double(factor)).clampedInt()
            text += base32(px - x) + base32(py - y)
            x = px; y = py
        }
        return text
    }

    private static let digits = Array("0123456789abcdefghijklmnopqrstuv")

    private static func base32(_ value: Int) -> String {
        var magnitude = value.magnitude, out: [Character] = []
        repeat {
            out.append(digits[Int(magnitude % 32)])
            magnitude /= 32
        } while magnitude > 0
        return (value < 0 ? "-" : "+") + String(out.reversed())
    }

    private static func integers(_ text: Substring) throws -> [Int] {
        var numbers: [Int] = [], current: Int?, negative = false
        for character in text {
            if character == "+" || character == "-" {
                if let current { numbers.append(negative ? -current : current) }
                current = 0; negative = character == "-"
                continue
            }
            guard let value = base32Value(character), let sofar = current else {
                throw RouteError("a step's compressed geometry holds a character that is not base 32")
            }
            let (times, o1) = sofar.multipliedReportingOverflow(by: 32)
            let (sum, o2) = times.addingReportingOverflow(value)
            guard !o1, !o2 else { throw RouteError("a step's compressed geometry holds a number too large") }
            current = sum
        }
        if let current { numbers.append(negative ? -current : current) }
        return numbers
    }

    private static func base32Value(_ c: Character) -> Int? {
        guard let ascii = c.asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(ascii - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "v"): return Int(ascii - UInt8(ascii: "a")) + 10
        default: return nil
        }
    }
}

/// A place a route is asked through: one already located (a place picked in the search, the map's
/// centre, a pin) or a name still to be found (the plain mode's `directions` command).
public enum StopQuery: Equatable, Sendable {
    case place(RouteStop)
    case named(String)

    public var name: String {
        switch self {
        case .place(let stop): stop.name
        case .named(let name): name
        }
    }

    public var point: GeoPoint? { if case .place(let stop) = self { stop.point } else { nil } }

    /// A stop as typed: `LON,LAT` (spaces allowed) is that point, named as typed without its
    /// spaces; anything else is a name still to be found. The one rule for the browser's and the
    /// plain mode's `directions` and for `mapbook route`.
    public init(typed text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let point = GeoPoint(parsing: text) {
            self = .place(RouteStop(name: text.replacingOccurrences(of: " ", with: ""), point: point))
        } else {
            self = .named(text)
        }
    }
}

/// Why no route came: the problem, and the distance along the stops as the crow flies (nil when the
/// stops themselves were refused or are not all located). One rule for the browser and the CLI.
public struct RouteFailure: UserFacingError, Equatable, Sendable {
    public var problem: LoadFailure
    /// Metres along the stops in order.
    public var straightLine: Double?
    /// What `sentence` says the straight line in (the browser says it in the user's `units`).
    public var units: DistanceUnits = .metric

    public init(problem: LoadFailure, straightLine: Double?) { self.problem = problem; self.straightLine = straightLine }

    /// The problem's sentence, then "In a straight line it is 174 km." in `units`.
    public func sentence(in units: DistanceUnits) -> String {
        problem.sentence + (straightLine.map { " In a straight line it is \(units.format($0))." } ?? "")
    }

    public var sentence: String { sentence(in: units) }
    public var userMessage: String { sentence }

    /// No route service can be asked from here: the network is cut off.
    public static func offline(_ stops: [StopQuery], host: String) -> RouteFailure {
        let points = stops.compactMap(\.point)
        return RouteFailure(problem: LoadFailure(sentence: "Directions need the portal's route service, and it cannot be reached now.",
                                                 network: .offline, host: host),
                            straightLine: points.count == stops.count && points.count > 1 ? Geodesy.length(points) : nil)
    }
}
