/// One labelled stop of a recorded trip: the place, and when the traveller arrived and moved on,
/// seconds on the walk's clock (as the file writes them when read without a walk).
public struct StopLabel: Hashable, Sendable {
    public var placeID: String
    public var arrivalSeconds: Double
    public var departureSeconds: Double
    /// 1-based line of the row.
    public var line: Int

    public init(placeID: String, arrivalSeconds: Double, departureSeconds: Double, line: Int) {
        self.placeID = placeID
        self.arrivalSeconds = arrivalSeconds
        self.departureSeconds = departureSeconds
        self.line = line
    }
}

/// The labels of a recorded trip's true stops (`rotate simulate --walk W --stops S.csv`): a header
/// naming `id`, `arrival` and `departure` (any order, other columns ignored), then one row per
/// stop. Times are written as the walk's `t` column writes them (seconds on the same scale, or
/// ISO 8601 times) and put on the walk's clock as the walk's own times are: the walk's first
/// fix's time (`WalkFile.originSeconds`) is subtracted. A bad row is rejected with its line and
/// reason, never dropped silently.
public enum StopLabelsCSV {
    static let aliases: [String: [String]] = [
        "id": ["id", "place", "place_id"],
        "arrival": ["arrival", "arrival_s", "arrived", "start"],
        "departure": ["departure", "departure_s", "departed", "end"],
    ]

    /// What a stop-labels file holds.
    public struct File: Sendable {
        public var stops: [StopLabel]
        public var rejected: [RejectedRow]
    }

    /// Reads the file at `path` (`-` for standard input).
    ///
    /// ```swift
    /// let walk = try WalkFile.read(path: "trip.csv")
    /// let labels = try StopLabelsCSV.read(path: "trip-stops.csv", walk: walk)
    /// for row in labels.rejected { print("trip-stops.csv:\(row.line): \(row.reason)") }
    /// ```
    ///
    /// A row is rejected when a field is missing or unreadable, when `departure` is before
    /// `arrival`, when it repeats a stop accepted before it (the same place at the same or
    /// overlapping times; stops that only touch are two), and, with a walk, when the stop is not
    /// within the walk's time (from its first fix to its last, both included).
    ///
    /// - Parameters:
    ///   - path: the labels file, or `-` for standard input.
    ///   - walk: the walk the labels belong to: their times are put on its clock (its
    ///     `originSeconds` subtracted) and must lie within it. Without it they are kept as
    ///     written, and any time is taken.
    ///   - strict: stop at the first bad row instead of rejecting it.
    /// - Throws: `StopLabelsError`: the file cannot be read, has no header, or the header lacks a
    ///   column (with the line); with `strict`, the first bad row.
    public static func read(path: String, walk: WalkFile? = nil, strict: Bool = false) throws(StopLabelsError) -> File {
        var checker = Checker(walk: walk)
        var file = File(stops: [], rejected: [])
        var columns: [String: Int]?
        var width = 0
        do {
            try CSVFile.forEachRecord(path: path) { record in
                guard let known = columns else {
                    if let problem = record.problem { throw StopLabelsError(line: record.line, reason: problem.headerDescription) }
                    let found = CSVFile.columns(of: record.fields, aliases: aliases)
                    for required in ["id", "arrival", "departure"] where found[required] == nil {
                        throw StopLabelsError(line: record.line, reason: "the header has no \(required) column")
                    }
                    columns = found
                    width = record.fields.count
                    return
                }
                switch parse(record, columns: known, width: width).flatMap({ checker.take($0) }) {
                case .success(let stop): file.stops.append(stop)
                case .failure(let error):
                    if strict { throw error }
                    file.rejected.append(RejectedRow(line: record.line, reason: error.reason, fields: record.fields))
                }
            }
        } catch let error as StopLabelsError {
            throw error
        } catch {
            throw StopLabelsError(line: 0, reason: "cannot read: \(error)")
        }
        guard columns != nil else { throw StopLabelsError(line: 1, reason: "the file is empty (no header row)") }
        return file
    }

    /// Puts labels on the walk's clock and refuses those outside the walk or repeating a stop
    /// accepted before.
    struct Checker {
        /// The walk's origin, subtracted from each label's times.
        let originSeconds: Double
        /// The walk's last fix on its clock; nil without a walk (any time is taken).
        let endSeconds: Double?
        /// Per place, the accepted stops' times, sorted by arrival: `(arrival, departure, line)`.
        /// They do not overlap, so only the neighbors of a new stop's place in the order can.
        var accepted: [String: [(arrival: Double, departure: Double, line: Int)]] = [:]

        init(walk: WalkFile?) {
            originSeconds = walk?.originSeconds ?? 0
            endSeconds = walk.map { $0.fixes.last?.timestampSeconds ?? 0 }
        }

        mutating func take(_ label: StopLabel) -> Result<StopLabel, StopLabelsError> {
            var stop = label
            stop.arrivalSeconds -= originSeconds
            stop.departureSeconds -= originSeconds
            func seconds(_ value: Double) -> String { CSVWriter.decimal(value, decimals: 3) }
            if let end = endSeconds, stop.arrivalSeconds < 0 || stop.departureSeconds > end {
                return .failure(
                    StopLabelsError(
                        line: stop.line,
                        reason:
                            "the stop (\(seconds(stop.arrivalSeconds)) to \(seconds(stop.departureSeconds)) s on the walk's clock) "
                            + "is outside the walk (0 to \(seconds(end)) s)"))
            }
            let spans = accepted[stop.placeID] ?? []
            // `low`: the first accepted stop arriving after this one. Of those before it, only the
            // last can reach past this arrival, and stops of no length share an arrival.
            var low = 0, high = spans.count
            while low < high {
                let mid = (low + high) / 2
                if spans[mid].arrival <= stop.arrivalSeconds { low = mid + 1 } else { high = mid }
            }
            var neighbors = [low]
            var before = low - 1
            while before >= 0 {
                neighbors.append(before)
                guard spans[before].arrival == stop.arrivalSeconds else { break }
                before -= 1
            }
            for neighbor in neighbors where spans.indices.contains(neighbor) {
                let other = spans[neighbor]
                let same = other.arrival == stop.arrivalSeconds && other.departure == stop.departureSeconds
                if same || (other.arrival < stop.departureSeconds && stop.arrivalSeconds < other.departure) {
                    return .failure(
                        StopLabelsError(
                            line: stop.line,
                            reason: "repeats the stop of line \(other.line) at '\(stop.placeID)' (the same or overlapping times)"))
                }
            }
            accepted[stop.placeID, default: []].insert((stop.arrivalSeconds, stop.departureSeconds, stop.line), at: low)
            return .success(stop)
        }
    }

    static func parse(_ record: CSVRecord, columns: [String: Int], width: Int) -> Result<StopLabel, StopLabelsError> {
        let line = record.line
        if let problem = record.problem { return .failure(StopLabelsError(line: line, reason: "\(problem)")) }
        guard record.fields.count == width else {
            return .failure(StopLabelsError(line: line, reason: "expected \(width) fields, found \(record.fields.count)"))
        }
        func field(_ name: String) -> String { columns[name].map { record.fields[$0].trimmingASCIIWhitespace() } ?? "" }
        func seconds(_ name: String) -> Result<Double, StopLabelsError> {
            let text = field(name)
            guard !text.isEmpty else { return .failure(StopLabelsError(line: line, reason: "missing \(name)")) }
            if let value = DecimalText.double(text) {
                return value.isFinite ? .success(value) : .failure(StopLabelsError(line: line, reason: "\(name) is not finite: '\(text)'"))
            }
            if let value = ISO8601.seconds(text) { return .success(value) }
            return .failure(StopLabelsError(line: line, reason: "\(name) is neither seconds nor an ISO 8601 time: '\(text)'"))
        }
        let id = field("id")
        guard !id.isEmpty else { return .failure(StopLabelsError(line: line, reason: "missing id")) }
        return seconds("arrival").flatMap { arrival in
            seconds("departure").flatMap { departure in
                departure >= arrival
                    ? .success(StopLabel(placeID: id, arrivalSeconds: arrival, departureSeconds: departure, line: line))
                    : .failure(StopLabelsError(line: line, reason: "departure \(departure) is before arrival \(arrival)"))
            }
        }
    }
}

/// A bad stop-labels file or row: the 1-based line (0: the file as a whole) and the reason.
public struct StopLabelsError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(line): \(reason)" }
}
