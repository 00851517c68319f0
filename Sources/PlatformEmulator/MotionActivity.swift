import Geodesy

/// The phone's motion-activity classifier (iOS `CMMotionActivityManager`, Android's Activity
/// Recognition transitions) as an app hears it: "still" once the device has stayed within
/// `stillMeters` of where it is for `windowSeconds`, "moving" once it has not, each change heard
/// `latencySeconds` after it happens (a change undone sooner is never heard).
///
/// Neither platform publishes how its classifier decides or how late it reports; every figure
/// is a stated choice with a range. Android's Activity Recognition "automatically detects
/// activities by periodically reading short bursts of sensor data" and "uses low power sensors
/// to resume reporting when it detects movement" (Google, *Activity Recognition API*); its
/// transitions wake an app in the background through a `PendingIntent`. On iOS a suspended app
/// hears no motion updates (they are delivered to a running app only), so
/// `wakesSuspendedApp` is false there.
public struct MotionActivity: Hashable, Sendable {
    /// How long the device must stay put to be still, seconds (range 30–300).
    public var windowSeconds: Double
    /// How far it may move and still be still, meters (a shopper browsing a small store is still;
    /// one walking the aisles of a large one is not). Range 5–30.
    public var stillMeters: Double
    /// How late a change is heard, seconds (range 0–120).
    public var latencySeconds: Double
    /// Whether a change reaches an app that is not running (Android) or only a running one (iOS).
    public var wakesSuspendedApp: Bool

    public init(windowSeconds: Double, stillMeters: Double, latencySeconds: Double, wakesSuspendedApp: Bool) {
        precondition(
            windowSeconds > 0 && stillMeters >= 0 && latencySeconds >= 0, "motion activity: window > 0, distances and latency >= 0")
        self.windowSeconds = windowSeconds
        self.stillMeters = stillMeters
        self.latencySeconds = latencySeconds
        self.wakesSuspendedApp = wakesSuspendedApp
    }

    /// iOS: still after 60 s within 10 m, heard 30 s late, by a running app only.
    public static let iOS = MotionActivity(windowSeconds: 60, stillMeters: 10, latencySeconds: 30, wakesSuspendedApp: false)
    /// Android: the same classifier, whose transitions wake the app.
    public static let android = MotionActivity(windowSeconds: 60, stillMeters: 10, latencySeconds: 30, wakesSuspendedApp: true)
    /// The ideal phone: heard at once, by any app.
    public static let ideal = MotionActivity(windowSeconds: 60, stillMeters: 10, latencySeconds: 0, wakesSuspendedApp: true)
}

/// The classifier's state along one walk: feed it every true position in time order.
public struct MotionActivityClassifier: Sendable {
    public let model: MotionActivity
    /// What the app has heard: true when still (the device starts moving).
    public private(set) var heardStill = false
    private var recent: [(time: Double, position: UnitVector)] = []
    private var start = 0
    private var pending: (still: Bool, dueSeconds: Double)?

    public init(_ model: MotionActivity) {
        self.model = model
    }

    /// The device is at `position` at `timeSeconds`: the change heard now, if any (true: the
    /// device became still; false: it moved on).
    public mutating func advance(to position: UnitVector, at timeSeconds: Double) -> Bool? {
        recent.append((timeSeconds, position))
        // Positions older than the window are dropped, keeping the last one before it: the
        // device has been still when every position since then is within reach.
        while start + 1 < recent.count, recent[start + 1].time <= timeSeconds - model.windowSeconds { start += 1 }
        if start > 1_024 {
            recent.removeFirst(start)
            start = 0
        }
        let reach = GreatCircle.squaredChord(arcMeters: model.stillMeters)
        let covered = recent[start].time <= timeSeconds - model.windowSeconds
        let still = covered && recent[start...].allSatisfy { $0.position.squaredChord(to: position) <= reach }
        if still == heardStill {
            pending = nil
        } else if pending?.still != still {
            pending = (still, timeSeconds + model.latencySeconds)
        }
        guard let due = pending, due.dueSeconds <= timeSeconds else { return nil }
        pending = nil
        heardStill = due.still
        return due.still
    }
}
