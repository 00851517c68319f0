extension PlatformProfile {
    /// What location costs a phone's battery: the power of the GNSS receiver while it is on, the
    /// energy of one Wi-Fi (network) position, of one app wake-up and of one request to a server,
    /// the standing cost of the OS's region and visit monitoring, and the battery it is drawn
    /// from. Data only, each figure with its source and a range; a replay multiplies them by what
    /// it counted (`energyJoules(gnssOnSeconds:wakeups:networkFixes:serverRequests:seconds:)`).
    ///
    /// Phones publish their subsystems' currents in Android's power profile ("values are given in
    /// current (amps)", measured by the maker; AOSP, *Power values*); a current is turned into power
    /// at 3.85 V, the iPhone 15's nominal voltage (12.981 Wh / 3,349 mAh).
    public struct Energy: Hashable, Sendable {
        /// GNSS receiver on, with the application processor awake to take its fixes, mW: 250.
        /// `gps.on` is 30 mA on the Pixel 2 (115 mW), 50 mA in AOSP's example (190 mW) and
        /// 76.23 mA on the Nexus 5 measured at 4.0 V (305 mW); AT&T's ARO energy model uses
        /// 0.28 W for active GPS; 0.37 W on the Nokia N95 (Paek, Kim and Govindan, *Energy-efficient
        /// rate-adaptive GPS-based positioning for smartphones*, MobiSys 2010). The processor
        /// awake adds `cpu.awake`, 14.38 mA on the Pixel 2 (55 mW). Range 115–425 mW.
        public var gnssMilliwatts: Double
        /// One Wi-Fi or cell position the OS makes for the app, J: 0.5. A scan draws `wifi.scan`
        /// 75.48 mA on the Nexus 5 (300 mW) for 0.5–2 s (11–14 channels of about 40 ms each, more
        /// with 5 GHz), plus the processor awake for 1–3 s. Range 0.3–1 J.
        public var networkFixJoules: Double
        /// One app wake-up that handles an event on the device and sends nothing, J: 0.2. The
        /// processor awake and active for 0.5–2 s at 100–200 mW (Pixel 2 and AOSP `cpu.awake`,
        /// `cpu.active`). Range 0.05–0.4 J.
        public var wakeupJoules: Double
        /// One small request to a server over LTE, J: 11. The radio's promotion (0.26 s at 1.21 W)
        /// and its tail (about 10.1 s at 1.06 W) dominate (AT&T ARO's LTE model, after Huang et
        /// al., *A close examination of performance and power characteristics of 4G LTE
        /// networks*, MobiSys 2012); over Wi-Fi it is nearer 0.5 J. Range 0.5–12 J.
        public var serverRequestJoules: Double
        /// The OS's region and visit monitoring while the app registers any, mW: 2. No
        /// measurement is published: the OS reuses cell, Wi-Fi and motion data it gathers anyway
        /// (Android's geofencing "uses only network location for geofence triggering … because
        /// network location consumes much less power"; Apple's engineers rank significant-change
        /// monitoring above region and visit monitoring in cost). An assumption, range 0–5 mW.
        public var monitoringMilliwatts: Double
        /// The battery the share is of, mWh: 12,981 for iOS (iPhone 15: 3,349 mAh, 12.981 Wh, from
        /// its regulatory filing), 17,400 for Android (a 4,500 mAh battery at 3.87 V; the Pixel 8
        /// has 4,575 mAh).
        public var batteryMilliwattHours: Double

        /// Describes a phone's energy figures; nothing is validated (the figures are data).
        public init(
            gnssMilliwatts: Double, networkFixJoules: Double, wakeupJoules: Double, serverRequestJoules: Double,
            monitoringMilliwatts: Double, batteryMilliwattHours: Double
        ) {
            self.gnssMilliwatts = gnssMilliwatts
            self.networkFixJoules = networkFixJoules
            self.wakeupJoules = wakeupJoules
            self.serverRequestJoules = serverRequestJoules
            self.monitoringMilliwatts = monitoringMilliwatts
            self.batteryMilliwattHours = batteryMilliwattHours
        }

        /// An iPhone: the figures above with the iPhone 15's battery.
        public static let iOS = Energy(
            gnssMilliwatts: 250, networkFixJoules: 0.5, wakeupJoules: 0.2, serverRequestJoules: 11, monitoringMilliwatts: 2,
            batteryMilliwattHours: 12_981)
        /// An Android phone: the figures above with a 4,500 mAh battery.
        public static let android = Energy(
            gnssMilliwatts: 250, networkFixJoules: 0.5, wakeupJoules: 0.2, serverRequestJoules: 11, monitoringMilliwatts: 2,
            batteryMilliwattHours: 17_400)

        /// The energy of what a replay counted, J: the GNSS receiver's time on, the wake-ups, the
        /// network positions (each also a wake-up), the server requests, and the monitoring's
        /// standing cost over `seconds`.
        public func energyJoules(gnssOnSeconds: Double, wakeups: Int, networkFixes: Int, serverRequests: Int, seconds: Double) -> Double {
            gnssMilliwatts / 1_000 * gnssOnSeconds + wakeupJoules * Double(wakeups + networkFixes) + networkFixJoules * Double(networkFixes)
                + serverRequestJoules * Double(serverRequests) + monitoringMilliwatts / 1_000 * seconds
        }
    }
}
