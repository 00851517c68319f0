extension PlatformProfile {
    /// A location service an app can ask for while it runs in the background: how often it
    /// reports, how accurate it is and whether it keeps the GNSS receiver on. Data only, with the
    /// source of each figure; ranges where the figure is not fixed.
    public struct LocationSource: Hashable, Sendable {
        /// What kind of location service a source is.
        public enum Kind: String, Hashable, Sendable, CaseIterable {
            /// Continuous updates with the GNSS receiver on.
            case continuous
            /// Updates only after a large move (iOS significant-change service).
            case significantChange
            /// Periodic updates an app in the background receives.
            case backgroundUpdates
            /// The single fix an app obtains when a region event wakes it.
            case wakeFix
        }

        /// What kind of service this is.
        public var kind: Kind
        /// Seconds between reports: at least the lower bound, and a report at the upper bound
        /// even without a move; nil when the source reports once, on request.
        public var intervalSeconds: ClosedRange<Double>?
        /// Distance the device must move before the next report, meters; nil when not
        /// distance-gated.
        public var minimumDisplacementMeters: Double?
        /// Horizontal error of a report, meters (a typical range, not a bound).
        public var accuracyMeters: ClosedRange<Double>
        /// Seconds from the request to the fix; nil for a stream.
        public var timeToFixSeconds: ClosedRange<Double>?
        /// Whether the source keeps the GNSS receiver on.
        public var keepsGNSSOn: Bool

        /// Describes a location source; nothing is validated (the figures are data, not rules).
        public init(
            kind: Kind, intervalSeconds: ClosedRange<Double>?, minimumDisplacementMeters: Double?, accuracyMeters: ClosedRange<Double>,
            timeToFixSeconds: ClosedRange<Double>?, keepsGNSSOn: Bool
        ) {
            self.kind = kind
            self.intervalSeconds = intervalSeconds
            self.minimumDisplacementMeters = minimumDisplacementMeters
            self.accuracyMeters = accuracyMeters
            self.timeToFixSeconds = timeToFixSeconds
            self.keepsGNSSOn = keepsGNSSOn
        }

        /// iOS.
        ///
        /// - Continuous (background location mode): about 1 s between updates, 5–10 m. The rate is
        ///   not published by Apple (1 Hz is the usual GNSS output rate); accuracy: assisted GPS on
        ///   the iPhone had a median error of 8 m (Zandbergen, *Transactions in GIS* 13(s1), 2009).
        /// - Significant change: "typically … when the device has moved at least 500 meters, or has
        ///   changed cell towers. Notifications are not sent unless at least five minutes has
        ///   elapsed since the last notification" (*iOS Components and Frameworks*, O'Reilly;
        ///   Apple, *Using the significant-change location service*: only when the position changes
        ///   "by a significant amount, such as 500 meters or more"). Wi-Fi and cell positions:
        ///   43–92 m median for Wi-Fi (Zandbergen, *Journal of Location Based Services* 6(1), 2012),
        ///   up to cell accuracy, 600 m median (Zandbergen 2009). And at least every 15 minutes:
        ///   "Significant-change location updates wake the system and your app once every 15
        ///   minutes, at minimum, even if no location changes have occurred" (Apple, *Energy
        ///   Efficiency Guide for iOS Apps*, location best practices): 300–900 s apart.
        /// - Wake fix: an app woken by a region event gets "a small amount of time (around 10
        ///   seconds)" to handle it (Apple, region monitoring documentation), so the fix must come
        ///   within about 10 s; its time to fix is not published for iOS (range 1–10 s), its accuracy
        ///   that of assisted GPS, 8 m median, up to Wi-Fi's 74 m when no GNSS fix comes in time.
        public static let iOS: [LocationSource] = [
            LocationSource(
                kind: .continuous, intervalSeconds: 1...1, minimumDisplacementMeters: nil, accuracyMeters: 5...10,
                timeToFixSeconds: nil, keepsGNSSOn: true),
            LocationSource(
                kind: .significantChange, intervalSeconds: 300...900, minimumDisplacementMeters: 500,
                accuracyMeters: 43...600, timeToFixSeconds: nil, keepsGNSSOn: false),
            LocationSource(
                kind: .wakeFix, intervalSeconds: nil, minimumDisplacementMeters: nil, accuracyMeters: 8...74, timeToFixSeconds: 1...10,
                keepsGNSSOn: true),
        ]

        /// Android.
        ///
        /// - Continuous (a foreground service): about 1 s, 5–10 m, as on iOS (rate not published;
        ///   assisted GPS median 8 m, Zandbergen 2009).
        /// - Background updates: "apps can receive location updates only a few times each hour"
        ///   (Android Developers, *Background location limits*, Android 8.0); "a few" is not a
        ///   number, so 2–4 an hour: 900–1800 s. Fused network positions, 43–92 m median for Wi-Fi
        ///   (Zandbergen 2012).
        /// - Wake fix: with assistance data a device "MUST determine its location, in open sky,
        ///   within 5 seconds, when location requests are restarted, up to an hour after the initial
        ///   location calculation" (Android Compatibility Definition, 7.3.3); 1–5 s, 8 m median
        ///   (assisted GPS), up to Wi-Fi's 74 m indoors.
        public static let android: [LocationSource] = [
            LocationSource(
                kind: .continuous, intervalSeconds: 1...1, minimumDisplacementMeters: nil, accuracyMeters: 5...10,
                timeToFixSeconds: nil, keepsGNSSOn: true),
            LocationSource(
                kind: .backgroundUpdates, intervalSeconds: 900...1800, minimumDisplacementMeters: nil, accuracyMeters: 43...92,
                timeToFixSeconds: nil, keepsGNSSOn: false),
            LocationSource(
                kind: .wakeFix, intervalSeconds: nil, minimumDisplacementMeters: nil, accuracyMeters: 8...74, timeToFixSeconds: 1...5,
                keepsGNSSOn: true),
        ]
    }
}
