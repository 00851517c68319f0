import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The probability that the user is inside a polygon footprint, given one noisy fix: the true
/// position is the fix plus a 2D Gaussian error of `sigma` per axis (the model of
/// `InsideProbability`, whose circle this generalizes).
///
/// Method (DiDonato & Hageman 1980, *Computation of the integral of the bivariate normal
/// distribution over arbitrary polygons*, NSWC TR 80-166, DTIC ADA102466): in the plane about the
/// fix, in units of σ, the polygon's mass is the signed sum over its edges p₁ → p₂ of the mass of
/// the triangle (fix, p₁, p₂). With h the distance from the fix to the edge's line and aᵢ each
/// end's position along that line over h, the triangle's mass is
/// `[atan(a₂) − atan(a₁)] / 2π − [T(h, a₂) − T(h, a₁)]`, the wedge's share less what lies beyond
/// the line, T being Owen's T function; its sign is the triangle's orientation. Shells run
/// counterclockwise and holes clockwise (`SphericalPolygon`), so holes subtract themselves, and the
/// two sides of an antimeridian seam cancel.
///
/// The plane is the gnomonic projection about the fix, where great-circle edges are straight;
/// it puts a line θ away at tan θ, 8 · 10⁻¹¹ farther at 100 m, so P(inside) agrees with the
/// half-plane of the exact great-circle distance to 1e-10. A regular polygon of 1,024 sides with
/// a circle's area gives the circle's Rice probability (`InsideProbability`) within 6 · 10⁻¹¹.
/// An edge reaching behind the fix's hemisphere (a shape spanning tens of degrees) has no image
/// there; thousands of kilometers away, nothing lies beyond its line, and its triangle holds the
/// share of the wedge it subtends, from the angle between the great circles toward its ends.
///
/// Fast path (`value`): where the fix is more than `fastPathSigmas` σ from every vertex and at
/// most one edge comes within that distance, the footprint near the fix is a half-plane (or
/// nothing), and P(inside) is Φ(−s/σ) for s the signed distance to that edge: the mass beyond
/// 8 σ is below 1.3 · 10⁻¹⁴. Elsewhere (a corner, a hole or a narrow part within reach) the
/// nearest edge alone is off by up to 0.35–0.42 next to a hole, and the edge sum is taken.
public enum PolygonInsideProbability {
    /// How far, in σ, every vertex and all but one edge must be for the half-plane fast path.
    public static let fastPathSigmas = 8.0

    /// P(inside `shape`) for a fix at `fix` with Gaussian error `sigmaMeters` (> 0) per axis.
    public static func value(_ shape: SphericalMultiPolygon, fix: UnitVector, sigmaMeters sigma: Double) -> Double {
        precondition(sigma > 0 && sigma.isFinite, "sigma must be finite and > 0")
        let reach = fastPathSigmas * sigma / Earth.meanRadiusMeters
        var near = 0
        var nearest = Double.infinity
        for part in shape.parts {
            for (a, b) in part.edges {
                if fix.angleRadians(to: a) <= reach { return exact(shape, fix: fix, sigmaMeters: sigma) }
                let distance = SphericalPolygon.arcDistanceRadians(fix, a, b)
                if distance <= reach {
                    near += 1
                    // A second edge (a corner's, a hole's, the other side of an antimeridian seam,
                    // which the edge sum cancels): the half-plane no longer describes it.
                    if near > 1 { return exact(shape, fix: fix, sigmaMeters: sigma) }
                }
                nearest = min(nearest, distance)
            }
        }
        let inside = shape.contains(fix)
        guard near == 1 else { return inside ? 1 : 0 }
        let s = nearest * Earth.meanRadiusMeters / sigma
        return normalCDF(inside ? s : -s)
    }

    /// P(inside `shape`) by the edge sum, whatever the fix's distance.
    public static func exact(_ shape: SphericalMultiPolygon, fix: UnitVector, sigmaMeters sigma: Double) -> Double {
        precondition(sigma > 0 && sigma.isFinite, "sigma must be finite and > 0")
        let frame = GnomonicFrame(center: fix)
        let scale = Earth.meanRadiusMeters / sigma
        var total = 0.0
        for part in shape.parts {
            for (a, b) in part.edges {
                if let pa = frame.project(a), let pb = frame.project(b) {
                    total += triangleMass(pa * scale, pb * scale)
                } else {
                    // An edge reaching behind the fix's hemisphere is thousands of kilometers
                    // away: nothing lies beyond its line, and its triangle holds the share of the
                    // wedge it subtends, the signed angle between the directions to its ends.
                    total += wedgeAngle(fix, a, b) / (2 * .pi)
                }
            }
        }
        return min(1, max(0, total))
    }

    /// The signed angle at `fix` from the great circle toward `a` to the one toward `b`, in
    /// (−π, π]: positive counterclockwise seen from outside the sphere.
    static func wedgeAngle(_ fix: UnitVector, _ a: UnitVector, _ b: UnitVector) -> Double {
        let towardA = a - fix.scaled(by: fix.dot(a))
        let towardB = b - fix.scaled(by: fix.dot(b))
        return atan2(fix.dot(towardA.cross(towardB)), towardA.dot(towardB))
    }

    /// The signed standard bivariate normal mass of the triangle (origin, p, q), in σ units:
    /// positive when it runs counterclockwise.
    static func triangleMass(_ p: SIMD2<Double>, _ q: SIMD2<Double>) -> Double {
        let cross = p.x * q.y - p.y * q.x
        let d = q - p
        let length = (d * d).sum().squareRoot()
        guard length > 0, abs(cross) > 1e-300 else { return 0 }
        let h = abs(cross) / length
        let a1 = (p * d).sum() / abs(cross)
        let a2 = (q * d).sum() / abs(cross)
        let mass = (atan(a2) - atan(a1)) / (2 * .pi) - (owensT(h: h, a: a2) - owensT(h: h, a: a1))
        return cross > 0 ? mass : -mass
    }

    /// Owen's T function, T(h, a) = (1 / 2π) ∫₀ᵃ exp(−h² (1 + x²) / 2) / (1 + x²) dx: for
    /// |a| ≤ 1 by Gauss–Legendre quadrature in panels no wider than 1.5 / h (12 nodes each, the
    /// Gaussian factor resolved to about 1e-13); for |a| > 1 by Owen's identity
    /// T(h, a) = ½ Φ(h) Q(ah) + ½ Φ(ah) Q(h) − T(ah, 1/a) (h ≥ 0, a > 0, Q = 1 − Φ), which keeps
    /// the quadrature on [0, 1]. Even in h, odd in a.
    public static func owensT(h: Double, a: Double) -> Double {
        let h = abs(h)
        if a < 0 { return -owensT(h: h, a: -a) }
        if a == 0 { return 0 }
        if a > 1 {
            let ah = a * h
            return 0.5 * normalCDF(h) * normalCDF(-ah) + 0.5 * normalCDF(ah) * normalCDF(-h) - owensT(h: ah, a: 1 / a)
        }
        // exp(−h²/2) below the smallest double: nothing to add.
        if h > 38.6 { return 0 }
        let panels = max(1, Int((a * max(h, 1) / 1.5).rounded(.up)))
        let width = a / Double(panels)
        let rule = GaussLegendre.twelve
        let halfSquare = 0.5 * h * h
        var total = 0.0
        for panel in 0..<panels {
            let mid = (Double(panel) + 0.5) * width
            var sum = 0.0
            for k in 0..<rule.nodes.count {
                let x = mid + 0.5 * width * rule.nodes[k]
                let onePlus = 1 + x * x
                sum += rule.weights[k] * exp(-halfSquare * onePlus) / onePlus
            }
            total += sum * 0.5 * width
        }
        return total / (2 * .pi)
    }

    /// Φ, the standard normal CDF, via erfc (full relative precision in the lower tail).
    public static func normalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }
}
