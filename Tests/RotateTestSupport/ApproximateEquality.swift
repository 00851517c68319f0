/// Whether `a` and `b` agree within `absolute` or within `relative` of the larger magnitude.
public func isApproximatelyEqual(_ a: Double, _ b: Double, absolute: Double = 0, relative: Double = 0) -> Bool {
    if a == b { return true }
    guard a.isFinite, b.isFinite else { return false }
    let difference = abs(a - b)
    return difference <= absolute || difference <= relative * max(abs(a), abs(b))
}
