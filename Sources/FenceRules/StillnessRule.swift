import Geodesy

/// Decides from fixes when the user has stopped (and moved on): still once the fixes have stayed
/// within `radiusMeters` of where the stay began for `durationSeconds`; moving again when the
/// fixes leave the radius by `leaving` (Radar's: the first fix beyond it).
///
/// Where a stay begins is `anchor`: the first fix of the stay (`firstFix`, the rule of Radar's SDK,
/// "stopped" = within `stopDistance` 70 m for `stopDuration` 140 s) or the running mean of the
/// stay's fixes (`meanOfFixes`), which a single far fix at the start does not throw off. Fixes of
/// a phone indoors are Wi-Fi positions whose error wanders by tens of meters and changes slowly,
/// so the radius must exceed that wander; `rotate evaluate --still` measures the choice against
/// the true stops of errand trips.
public struct StillnessRule: Hashable, Sendable {
    /// How a stay's center is kept.
    public enum Anchor: String, Hashable, Sendable, CaseIterable {
        case firstFix = "first-fix"
        case meanOfFixes = "mean"
    }

    /// When fixes beyond the radius end a stay: at the `fixes`-th in a row once `seconds` have
    /// passed since the first of them, or at once for a fix beyond `farFactor` radii. Until then
    /// the stay holds (a stray Wi-Fi position does not end it) but is not said still; a fix
    /// within the radius again clears the count.
    public struct Leaving: Hashable, Sendable {
        public var fixes: Int
        public var seconds: Double
        public var farFactor: Double

        /// - Precondition: `fixes >= 1`, `seconds >= 0`, `farFactor >= 1`.
        public init(fixes: Int, seconds: Double, farFactor: Double) {
            precondition(fixes >= 1 && seconds >= 0 && farFactor >= 1, "leaving: fixes >= 1, seconds >= 0, far factor >= 1")
            self.fixes = fixes
            self.seconds = seconds
            self.farFactor = farFactor
        }

        /// The first fix beyond the radius ends the stay (Radar's rule).
        public static let firstFixBeyond = Leaving(fixes: 1, seconds: 0, farFactor: 1)
        /// Two fixes in a row beyond the radius, 30 s apart, or one beyond three radii (the event
        /// engine's stays, `VisitSettings`).
        public static let twoFixesThirtySeconds = Leaving(fixes: 2, seconds: 30, farFactor: 3)
    }

    /// What a fix changed.
    public enum Change: Hashable, Sendable {
        /// Still since `sinceSeconds` (the stay's first fix).
        case stopped(sinceSeconds: Double)
        /// Moving again at `atSeconds` (the first of the fixes beyond the radius that ended the
        /// stay).
        case moved(atSeconds: Double)
    }

    public let radiusMeters: Double
    public let durationSeconds: Double
    public let anchor: Anchor
    public let leaving: Leaving
    /// Whether the rule says the user is still now.
    public private(set) var isStill = false
    private var center: UnitVector?
    private var sumX = 0.0
    private var sumY = 0.0
    private var sumZ = 0.0
    private var count = 0
    private var sinceSeconds = 0.0
    private var outside = 0
    private var firstOutsideSeconds = 0.0

    /// - Precondition: `radiusMeters > 0`, `durationSeconds >= 0`.
    public init(radiusMeters: Double, durationSeconds: Double, anchor: Anchor = .firstFix, leaving: Leaving = .firstFixBeyond) {
        precondition(radiusMeters > 0 && durationSeconds >= 0, "stillness: radius > 0, duration >= 0")
        self.radiusMeters = radiusMeters
        self.durationSeconds = durationSeconds
        self.anchor = anchor
        self.leaving = leaving
    }

    /// Radar's rule: within 70 m of the stay's first fix for 140 s (radarlabs/radar-sdk-ios
    /// `RadarTrackingOptions.m`, `stopDistance` and `stopDuration` of every preset).
    public static let radar = StillnessRule(radiusMeters: 70, durationSeconds: 140, anchor: .firstFix)

    /// Takes the fix at `position` and `timeSeconds` (in time order) and says what changed.
    public mutating func add(_ position: Coordinate, at timeSeconds: Double) -> Change? {
        let vector = UnitVector(position)
        if let center {
            let chord = center.squaredChord(to: vector)
            if chord <= GreatCircle.squaredChord(arcMeters: radiusMeters) {
                outside = 0
                if anchor == .meanOfFixes { include(vector) }
                guard !isStill, timeSeconds - sinceSeconds >= durationSeconds else { return nil }
                isStill = true
                return .stopped(sinceSeconds: sinceSeconds)
            }
            if outside == 0 { firstOutsideSeconds = timeSeconds }
            outside += 1
            let far = chord > GreatCircle.squaredChord(arcMeters: leaving.farFactor * radiusMeters)
            guard far || (outside >= leaving.fixes && timeSeconds - firstOutsideSeconds >= leaving.seconds) else { return nil }
        }
        let moved = isStill
        let movedAt = outside > 0 ? firstOutsideSeconds : timeSeconds
        outside = 0
        isStill = false
        sumX = 0
        sumY = 0
        sumZ = 0
        count = 0
        include(vector)
        sinceSeconds = timeSeconds
        return moved ? .moved(atSeconds: movedAt) : nil
    }

    private mutating func include(_ vector: UnitVector) {
        sumX += vector.x
        sumY += vector.y
        sumZ += vector.z
        count += 1
        center = anchor == .firstFix && count > 1 ? center : UnitVector(x: sumX, y: sumY, z: sumZ).normalized
    }
}
