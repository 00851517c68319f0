extension PlatformProfile {
    /// A delivery delay with a long tail, given by the quantiles that are published: minimum,
    /// median, 90th percentile and maximum, seconds.
    ///
    /// Sampling inverts a piecewise-linear quantile function through `(0, minimum)`,
    /// `(0.5, median)`, `(0.9, p90)` and `(1, maximum)`: a uniform `u` in `[0, 1)` maps to the
    /// straight line between the two neighboring points. The published figures are quantiles, so
    /// this reproduces them exactly (the sample median is the median, and so on) and assumes
    /// nothing else; the top decile spreads evenly from the 90th percentile to the maximum, which is
    /// the long tail. One uniform draw per sample, no transcendental functions.
    public struct LatencyDistribution: Hashable, Sendable {
        /// The shortest delay, seconds (quantile 0).
        public var minimumSeconds: Double
        /// The median delay, seconds (quantile 0.5).
        public var medianSeconds: Double
        /// The 90th-percentile delay, seconds (quantile 0.9): 9 in 10 events arrive sooner.
        public var p90Seconds: Double
        /// The longest delay, seconds (quantile 1).
        public var maximumSeconds: Double

        /// Creates a distribution from its four published quantiles, seconds.
        ///
        /// - Precondition: `0 <= minimum <= median <= p90 <= maximum`, all finite.
        public init(minimumSeconds: Double, medianSeconds: Double, p90Seconds: Double, maximumSeconds: Double) {
            precondition(
                minimumSeconds >= 0 && minimumSeconds <= medianSeconds && medianSeconds <= p90Seconds && p90Seconds <= maximumSeconds
                    && maximumSeconds.isFinite,
                "latency quantiles must be finite and ordered: 0 <= min <= median <= p90 <= max")
            self.minimumSeconds = minimumSeconds
            self.medianSeconds = medianSeconds
            self.p90Seconds = p90Seconds
            self.maximumSeconds = maximumSeconds
        }

        /// Every sample is `seconds`.
        public static func constant(_ seconds: Double) -> LatencyDistribution {
            LatencyDistribution(minimumSeconds: seconds, medianSeconds: seconds, p90Seconds: seconds, maximumSeconds: seconds)
        }

        /// The delay at quantile `u` (`0...1`; clamped), seconds.
        @inlinable
        public func quantile(_ u: Double) -> Double {
            let u = min(max(u, 0), 1)
            if u < 0.5 { return minimumSeconds + (medianSeconds - minimumSeconds) * (u / 0.5) }
            if u < 0.9 { return medianSeconds + (p90Seconds - medianSeconds) * ((u - 0.5) / 0.4) }
            return p90Seconds + (maximumSeconds - p90Seconds) * ((u - 0.9) / 0.1)
        }

        /// iOS, measured from the OS's decision (the 20 s stay is modeled apart).
        ///
        /// - 90th percentile 10 s: Radius Networks' field test (*Geofence Performance Testing on
        ///   iOS*, 2015; two iPhones, about 100 triggers, phones locked in the background) saw both
        ///   apps trigger "nearly every time within 30 seconds" (92 of ~100) of arriving; 30 s minus
        ///   the 20 s stay leaves 10 s.
        /// - Median 5 s: not published; the range the 90th percentile allows is 0–10 s and its
        ///   middle is used.
        /// - Maximum 300 s: Apple's legacy *Location and Maps Programming Guide* says an app "can
        ///   expect to receive the appropriate region entered or region exited notification within
        ///   3 to 5 minutes on average, if not sooner" (iOS 6 hardware); taken as the end of the tail
        ///   (range 180–300 s); the cautious preset assumes it (`PlatformProfile.latencySeconds(.cautious)`).
        /// - Minimum 0 s.
        public static let iOS = LatencyDistribution(minimumSeconds: 0, medianSeconds: 5, p90Seconds: 10, maximumSeconds: 300)

        /// Android, for an app in the background (the usual case for geofencing).
        ///
        /// - Median 120 s: alerts usually arrive within two minutes (Android Developers, *Create and
        ///   monitor geofences*, best practices); not published as a median, the range is 60–120 s.
        /// - 90th percentile 180 s: on Android 8.0+ an app in the background "responds to
        ///   geofencing events every couple of minutes" (same page), 2–3 minutes; the upper end.
        /// - Maximum 360 s: up to about 6 minutes when the device has been stationary (same page,
        ///   troubleshooting; android/location-samples #203 reports much longer on an idle phone,
        ///   which is not modeled).
        /// - Minimum 0 s.
        public static let android = LatencyDistribution(minimumSeconds: 0, medianSeconds: 120, p90Seconds: 180, maximumSeconds: 360)
    }
}
