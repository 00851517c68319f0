import Foundation
import Geodesy

/// The true path as the oracles check it: between consecutive samples, points at most
/// `spacingMeters` apart along the great circle, each with its time.
///
/// Step `i` runs from sample `i` toward sample `i + 1` and holds `pointCount(ofStep: i)` points:
/// sample `i` itself, then points at equal fractions of the step, the next sample excluded (it
/// opens the next step). The last sample's step is that sample alone, and so is a recording
/// gap's (`Walk.gapSeconds`). Times are interpolated
/// linearly between the samples' times (even speed along a step). The visit oracle and the
/// missed-fence oracle both walk this one sequence, so a point counted inside a fence by one is
/// counted inside by the other.
package struct DensifiedPath: Sendable {
    /// The samples' unit vectors and step lengths.
    package let path: TruePath
    /// Each sample's time, seconds since the walk started.
    package let timesSeconds: [Double]
    /// Longest distance between two consecutive points, meters.
    package let spacingMeters: Double

    /// Steps longer than this in time are recording gaps (`Walk.gapSeconds`), seconds.
    package let gapSeconds: Double?

    package init(_ walk: Walk, path: TruePath, spacingMeters: Double) {
        precondition(spacingMeters > 0, "DensifiedPath: spacing must be positive")
        self.path = path
        timesSeconds = walk.samples.map(\.timeSeconds)
        self.spacingMeters = spacingMeters
        gapSeconds = walk.gapSeconds
    }

    /// Number of samples (and of steps).
    package var stepCount: Int { path.vectors.count }

    /// How many points step `i` holds: 1 for the last sample and for a recording gap (its
    /// sample alone: no path is invented across it), otherwise the step's length over the
    /// spacing, rounded up (at least 1).
    package func pointCount(ofStep i: Int) -> Int {
        guard i + 1 < path.vectors.count else { return 1 }
        if let gapSeconds, timesSeconds[i + 1] - timesSeconds[i] > gapSeconds { return 1 }
        return max(1, Int((path.stepMeters[i] / spacingMeters).rounded(.up)))
    }

    /// Calls `body` with each point of step `i` in order: its unit vector and its time.
    ///
    /// A point at fraction f of a step of angle θ is `a cos(fθ) + t sin(fθ)`, where `a` is the
    /// step's first sample and `t` the unit tangent at `a` toward the next: exactly on the great
    /// circle, however long the step.
    package func forEachPoint(ofStep i: Int, _ body: (UnitVector, Double) throws -> Void) rethrows {
        let a = path.vectors[i]
        let start = timesSeconds[i]
        let count = pointCount(ofStep: i)
        try body(a, start)
        guard count > 1 else { return }
        let b = path.vectors[i + 1]
        let angle = path.stepMeters[i] / Earth.meanRadiusMeters
        // t = (b − a) less its component along a, normalized: b − (a·b)a formed from the small
        // difference b − a, which keeps its precision for steps of a meter.
        let d = UnitVector(x: b.x - a.x, y: b.y - a.y, z: b.z - a.z)
        let along = d.x * a.x + d.y * a.y + d.z * a.z
        let tangent = UnitVector(x: d.x - along * a.x, y: d.y - along * a.y, z: d.z - along * a.z).normalized
        let duration = timesSeconds[i + 1] - start
        for s in 1..<count {
            let fraction = Double(s) / Double(count)
            let c = cos(fraction * angle)
            let sn = sin(fraction * angle)
            let point = UnitVector(x: a.x * c + tangent.x * sn, y: a.y * c + tangent.y * sn, z: a.z * c + tangent.z * sn)
            try body(point, start + duration * fraction)
        }
    }
}
