extension PlatformProfile {
    /// The error of the position the OS uses to decide region crossings: a 2D Gaussian of
    /// `sigmaMeters` per axis that changes slowly (a first-order Gauss–Markov process with
    /// correlation time `correlationSeconds`).
    ///
    /// Network positions are wrong in the same direction for a while (Wi-Fi errors show "erratic
    /// spatial patterns resulting from the design of the calibration effort", Zandbergen 2009), so
    /// the error is not drawn afresh for every fix: between two positions `dt` apart it keeps a
    /// share `ρ = exp(-dt / correlationSeconds)` and adds fresh noise of σ·√(1 − ρ²), which keeps
    /// its spread at σ per axis whatever the fix interval.
    public struct PositionNoise: Hashable, Sendable {
        /// Standard deviation per axis, meters (`0` for none).
        public var sigmaMeters: Double
        /// Correlation time of the error, seconds (`> 0`).
        public var correlationSeconds: Double

        /// - Precondition: `sigmaMeters >= 0`, `correlationSeconds > 0`, both finite.
        public init(sigmaMeters: Double, correlationSeconds: Double) {
            precondition(sigmaMeters >= 0 && sigmaMeters.isFinite, "noise sigma must be finite, >= 0")
            precondition(correlationSeconds > 0 && correlationSeconds.isFinite, "noise correlation time must be finite, > 0")
            self.sigmaMeters = sigmaMeters
            self.correlationSeconds = correlationSeconds
        }

        /// No error: the OS knows the true position.
        public static let none = PositionNoise(sigmaMeters: 0, correlationSeconds: 1)

        /// Wi-Fi positioning, what both platforms monitor regions with.
        ///
        /// - σ 36.5 m per axis: Wi-Fi positions had median errors of 43 to 92 m in three cities
        ///   (Zandbergen, "Comparison of WiFi positioning on two mobile devices", *Journal of
        ///   Location Based Services* 6(1), 2012) and 74 m on the iPhone 3G (Zandbergen, "Accuracy of
        ///   iPhone locations: a comparison of assisted GPS, WiFi and cellular positioning",
        ///   *Transactions in GIS* 13(s1), 2009). A 2D Gaussian's median error is σ·√(2 ln 2) =
        ///   1.177 σ, so the best of those medians, 43 m, gives σ = 36.5 m (range 0–78 m, 78 m
        ///   from the worst, 92 m; cell positions, median 600 m, are not modeled).
        /// - Correlation time 60 s: not published; range 10–600 s.
        public static let networkLocation = PositionNoise(sigmaMeters: 36.5, correlationSeconds: 60)
    }
}
