import FenceRules
import Geodesy
import PlatformFacts

/// A store visit: the user stopped somewhere, and which place it was.
///
/// The vocabulary follows the platforms' own so that a host maps it at once: an arrival and a
/// departure time with a coordinate and its accuracy, as iOS's `CLVisit` (whose departure is
/// unknown while the visit lasts), and the place as Android's `GEOFENCE_TRANSITION_DWELL` names
/// its geofence. Unlike either, the place is a posterior: every place near the stop with its
/// probability, and the probability that the stop was at none of them (the shop next door that
/// is not in the catalog, a bus stop).
public struct StoreVisit: Hashable, Sendable, Codable {
    /// A place the visit may have been at, with its probability.
    public struct Candidate: Hashable, Sendable, Codable {
        /// The place's id (`place` in JSON).
        public var placeID: String
        /// Its posterior probability, `0...1` (`p` in JSON).
        public var probability: Double

        /// A candidate place with its probability.
        public init(placeID: String, probability: Double) {
            self.placeID = placeID
            self.probability = probability
        }

        private enum CodingKeys: String, CodingKey {
            case placeID = "place"
            case probability = "p"
        }
    }

    /// The most probable place, or nil when the stop was more likely at none of the catalog's
    /// places than `VisitSettings.maximumNoneProbability` (`place` in JSON).
    public var placeID: String?
    /// The places the visit may have been at, most probable first (ties by id): a credible set,
    /// the most probable places until they and "none of them" hold
    /// `VisitSettings.candidateMass` (99 %) of the probability, each at least
    /// `VisitSettings.minimumCandidateProbability`. With calibrated probabilities the place of a
    /// stop at a place is among them 99 times in 100, however many small places are near.
    public var candidates: [Candidate]
    /// The probability that the visit was at none of the catalog's places (`none_p` in JSON).
    public var noneProbability: Double
    /// Where the stay's fixes put the user on average.
    public var coordinate: Coordinate
    /// The 68 % radius of that position's error, meters (`accuracy_m` in JSON), from the fixes'
    /// accuracy with their errors correlated in time (`StopAttribution.meanVariance`).
    public var horizontalAccuracyMeters: Double
    /// The stay's first fix, seconds (`arrival_t` in JSON).
    public var arrivalSeconds: Double
    /// The first fix that left the stay, seconds; nil while the visit lasts (`departure_t`).
    public var departureSeconds: Double?
    /// The fixes the attribution used.
    public var fixes: Int

    /// A visit with every field given (the engine makes them; hosts and tests may too).
    public init(
        placeID: String?, candidates: [Candidate], noneProbability: Double, coordinate: Coordinate, horizontalAccuracyMeters: Double,
        arrivalSeconds: Double, departureSeconds: Double? = nil, fixes: Int
    ) {
        self.placeID = placeID
        self.candidates = candidates
        self.noneProbability = noneProbability
        self.coordinate = coordinate
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.arrivalSeconds = arrivalSeconds
        self.departureSeconds = departureSeconds
        self.fixes = fixes
    }

    private enum CodingKeys: String, CodingKey {
        case placeID = "place"
        case candidates
        case noneProbability = "none_p"
        case coordinate
        case horizontalAccuracyMeters = "accuracy_m"
        case arrivalSeconds = "arrival_t"
        case departureSeconds = "departure_t"
        case fixes
    }
}

/// The engine decided that a visit began (the user has been still long enough) or ended.
public struct VisitEvent: Hashable, Sendable {
    /// Arrival or departure.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The user is still at the visit's coordinate since its arrival time.
        case arrival
        /// The user left; the visit carries its departure time and the attribution from every
        /// fix of the stay.
        case departure
    }

    /// Whether the visit began or ended.
    public var kind: Kind
    /// The visit as known then (at a departure, from every fix of the stay).
    public var visit: StoreVisit
    /// The input's time, when the engine decided, seconds.
    public var timeSeconds: Double

    /// An event of `kind` for `visit`, decided at `timeSeconds`.
    public init(kind: Kind, visit: StoreVisit, timeSeconds: Double) {
        self.kind = kind
        self.visit = visit
        self.timeSeconds = timeSeconds
    }
}

/// How the engine finds stops and names their places (`FenceMonitor.Settings.visits`).
///
/// A stop is a stay: fixes within `stillRadiusMeters` of the stay's first fix for
/// `stillSeconds` (`StillnessRule` with a first-fix anchor). 100 m for 100 s is the rule that
/// `rotate evaluate --still` finds noticing the most stops soonest on errand trips with a phone
/// indoors (Wi-Fi fixes wander beyond Radar's 70 m). The visit ends once `departureFixes` fixes
/// in a row, at least `departureSeconds` apart from first to last (`settledDepartureSeconds` once
/// the visit has lasted `settleSeconds`), are beyond the radius of the stay's mean, or one is
/// beyond `farDepartureFactor` times the radius.
public struct VisitSettings: Hashable, Sendable {
    /// The radius fixes stay within, meters (> 0).
    public var stillRadiusMeters = 100.0
    /// How long they stay within it before a visit is reported, seconds (≥ 0).
    public var stillSeconds = 100.0
    /// Fixes in a row beyond the radius that end a visit (≥ 1).
    public var departureFixes = 2
    /// The time those fixes must span, seconds (≥ 0).
    public var departureSeconds = 30.0
    /// The time they must span once the visit has lasted `settleSeconds`, seconds (at least
    /// `departureSeconds` is used): a long stay wanders (an office, a campus, a mall: Wi-Fi fixes
    /// of 65 m around a user who walks 50-100 m from where the stay's mean lies leave its radius
    /// for a pause at the far end), a user who left stays beyond it. A stated choice, range
    /// 30-300 s: 120 s keeps one visit for a stay that wanders within 100 m and sees a walker who
    /// left about a minute later than 30 s would (`farDepartureFactor` radii end it at once).
    public var settledDepartureSeconds = 120.0
    /// One fix this many radii from the stay's mean ends the visit at once (≥ 1).
    public var farDepartureFactor = 3.0
    /// Fixes reporting a worse accuracy are not used, meters.
    public var maxAccuracyMeters = 200.0
    /// Places whose fence edge is within this distance of the stay's mean are candidates, meters.
    public var candidateRadiusMeters = 150.0
    /// A visit names its most probable place only when the probability that it was at none of
    /// them is at most this (`StoreVisit.placeID`).
    public var maximumNoneProbability = 0.5
    /// Candidates less probable than this are not listed (`StoreVisit.candidates`).
    public var minimumCandidateProbability = 0.001
    /// The candidates listed hold, with "none of them", at least this share of the probability
    /// (`StoreVisit.candidates`, a credible set): 0.99. In a mall of 10-40 m shops under 50-65 m
    /// Wi-Fi error that is a few places at the median and 40-60 at the 90th percentile; over
    /// isolated places one.
    public var candidateMass = 0.99
    /// The posterior's model (fix error correlation, the prior of "none of them").
    public var attribution = StopAttribution()
    /// Where the platform's regions cannot protect every place (`degraded`, `saturated`):
    /// continuous GNSS, which enters every fence passed (true, `VisitBudget.passages`), or
    /// stop-first (false, the default): network fixes every `watchIntervalSeconds`, which see
    /// stops only, a refresh region of at least `refreshFloorMeters` and at most
    /// `placesWhereNotExact` places monitored.
    public var passages = false
    /// Where the regions cannot protect every place and `passages` is off, the refresh region
    /// is at least this large, meters (`FenceRotator.refreshFloorMeters`): left every few
    /// minutes on foot rather than every few steps.
    public var refreshFloorMeters = 150.0
    /// Where the regions cannot protect every place and `passages` is off, at most this many
    /// places are monitored (`FenceRotator.placesWhereNotExact`; nil: every slot).
    public var placesWhereNotExact: Int? = 17
    /// Seconds between network fixes while a stay may become a visit: after a cue (a place
    /// entered) and, without GNSS, once two fixes stayed.
    public var burstIntervalSeconds = 20.0
    /// Without `passages`, seconds between network fixes after a cue until two fixes stay (then
    /// every `burstIntervalSeconds`), where the regions protect every place; where they cannot,
    /// the watch's (`watchIntervalSeconds`, if longer): there the watch already looks for stops,
    /// and a cue is mostly a walker crossing clustered fences, whose fixes 90 s apart do not stay.
    public var cueIntervalSeconds = 40.0
    /// A cue's burst lasts at most this long without a visit, seconds.
    public var burstSeconds = 240.0
    /// A cue's burst ends once the stay has moved on this many times (a pass-by).
    public var burstMoves = 2
    /// Seconds between network fixes where the regions cannot protect every place, without
    /// GNSS and without a stay under way.
    public var watchIntervalSeconds = 90.0
    /// Network fixes every `watchIntervalSeconds` where the regions protect every place too
    /// (true), so that a visit does not wait for the platform's entry (Android delivers it about
    /// two minutes late), or only where they cannot (false).
    public var watchesEverywhere = false
    /// Seconds between network fixes during a visit (to see the departure): without GNSS, and
    /// where the regions cannot protect every place, where the engine would otherwise keep GNSS
    /// on for passages the user, still, does not make.
    public var visitIntervalSeconds = 240.0
    /// How long a visit lasts, from its arrival time, before the engine turns GNSS off for it,
    /// seconds: a wait at a crossing that became a visit ends within minutes, and the walker then
    /// passes fences, which GNSS enters.
    public var settleSeconds = 300.0
    /// Faster than this the user is driving, m/s (`Stay.approachSpeed`, the speed at which the
    /// last stay was left): then the engine does not keep GNSS on to enter the fences it passes,
    /// where the regions cannot protect every place, and asks for network fixes every
    /// `watchIntervalSeconds` instead, which see the stop when the car parks; nil keeps GNSS on.
    /// 8 m/s (29 km/h) is above a cyclist's 4–6 m/s and a runner's, below urban traffic between
    /// lights (a shop passed at 20 m/s is not a visit, and GNSS kept on for it is the most common
    /// complaint about geofencing SDKs' battery use).
    public var drivingSpeedMetersPerSecond: Double? = 8
    /// The one fix the engine asks for after a refresh exit, a catalog change or a reset
    /// (`LocationRequest.oneFix`) comes from Wi-Fi or cell (true: iOS
    /// `kCLLocationAccuracyHundredMeters`, Android `PRIORITY_BALANCED_POWER_ACCURACY`) instead of
    /// GNSS (false). The planner's margin covers a network fix's error, and a fix less accurate
    /// than `RotationConfiguration.maxTrustedAccuracyMeters` drops no place the user may be
    /// inside; what it costs is an in-app decision of the places within reach from a coarser
    /// position. Where the regions cannot protect every place, the refresh region is small and
    /// its exits come every few minutes; a GNSS fix for each, indoors where the receiver runs to
    /// its longest, is most of the battery an hour of shopping costs without it.
    public var networkWakeFix = true
    /// For this long before a stay becomes a visit (its last `confirmSeconds` of
    /// `stillSeconds`), the engine asks for GNSS fixes, seconds (0: never): outdoors they put the
    /// stay within meters where Wi-Fi positions leave it 40-60 m off, so that a bus stop 10-20 m
    /// outside a fence, a red light beside a fuel station or a pavement beside a café is told
    /// from the place (weighted by their accuracy, they outweigh the stay's Wi-Fi positions);
    /// indoors they cost the same and add nothing (`preciseWithinSeconds`). They also tell a
    /// walker from a user standing (`motionSeconds`). 40 s of GNSS, 10 J at 250 mW, is 2.8 mWh
    /// per stay confirmed.
    public var confirmSeconds = 40.0
    /// A stay is confirmed only while its fixes leave its answer less probable than this: a stay
    /// deep inside a large place, or far from every place, is not (a walk through a park does
    /// not keep GNSS on).
    public var confirmBelowProbability = 0.95
    /// A fix reporting this accuracy or better is precise (GNSS under the sky; Wi-Fi positions
    /// report 30-100 m), meters.
    public var preciseAccuracyMeters = 20.0
    /// The GNSS of a stay's confirmation stops when no precise fix has come this long after it
    /// began, seconds: indoors the receiver finds no satellites. A warm receiver fixes in 1-5 s
    /// under the sky (Android's compatibility definition asks for 5 s); 10 s allows for iOS's
    /// unpublished figure (1-10 s).
    public var preciseWithinSeconds = 10.0
    /// Two precise fixes of a stay at least this far apart in time tell whether the user is
    /// walking on, seconds: a walker at 1.2 m/s covers 36 m in 30 s, beyond two GNSS fixes'
    /// error (0: no such check). Checked once per such interval, each check's fix the next one's
    /// reference.
    public var motionSeconds = 30.0
    /// Two precise fixes `motionSeconds` apart that are farther apart than 1.5 times their
    /// accuracies together and this say the user is walking on, meters: the stay begins again
    /// there (a walker who waited at a crossing inside a fence is not visiting the place), and
    /// until a check says the user stands, a stay with precise fixes does not arrive.
    public var motionSlackMeters = 5.0
    /// A battery budget for the location the engine asks for (nil: none, the settings above
    /// decide alone): as its account empties the engine gives up goals, in order, for cheaper
    /// services (`EnergyBudget`, `MonitorOutput.givenUp`).
    public var budget: EnergyBudget?

    /// The defaults above (`VisitBudget.balanced`).
    public init() {}

    /// The `passages` preset held to an average of `milliwatts` for the location the engine asks
    /// for, charged at `energy`'s costs (`EnergyBudget`): passages while the account allows, the
    /// stop-first services as it empties (`VisitGoal`'s order).
    public init(budgetMilliwatts milliwatts: Double, energy: PlatformProfile.Energy = .iOS) {
        self.init(budget: .passages)
        budget = EnergyBudget(milliwatts: milliwatts, energy: energy)
    }

    /// The defaults, set for `budget`: `balanced` is the defaults; `lowPower` confirms no stay
    /// with GNSS (`confirmSeconds` 0), so asks for longer stays (`stillSeconds` 140) and rarer
    /// fixes (cue 60 s, watch 120 s, visit 300 s); `responsive` reports visits sooner: stays of
    /// 60 s, a network fix every 30 s wherever the regions are (`watchesEverywhere`), the cue's
    /// burst at once, visit 120 s; `passages` keeps GNSS on for the fences a
    /// walker passes where the regions cannot protect every place (`passages` on, wake fixes
    /// from GNSS, watch 60 s, visit 120 s) and sees a settled visit's departure as soon as any
    /// (`settledDepartureSeconds` = `departureSeconds`: its GNSS fixes wander little).
    public init(budget: VisitBudget) {
        switch budget {
        case .lowPower:
            confirmSeconds = 0
            stillSeconds = 140
            cueIntervalSeconds = 60
            watchIntervalSeconds = 120
            visitIntervalSeconds = 300
        case .balanced: break
        case .responsive:
            cueIntervalSeconds = burstIntervalSeconds
            watchIntervalSeconds = 30
            watchesEverywhere = true
            stillSeconds = 60
            visitIntervalSeconds = 120
        case .passages:
            passages = true
            settledDepartureSeconds = departureSeconds
            networkWakeFix = false
            watchIntervalSeconds = 60
            visitIntervalSeconds = 120
        }
    }
}

/// How much battery the engine may spend on location beyond the platform's region monitoring,
/// as a preset of `VisitSettings` (`init(budget:)`); Benchmarks/RESULTS.md measures each one's
/// stop recall and energy on errand trips.
public enum VisitBudget: String, Hashable, Sendable, CaseIterable {
    /// Stop-first with no GNSS at all: longer stays and rarer network fixes.
    case lowPower = "low-power"
    /// Stop-first (the default): network fixes find the stops where the regions cannot protect
    /// every place, GNSS only confirms a stay whose place is uncertain; passages through fences
    /// there are not entered.
    case balanced
    /// Stop-first with visits reported sooner: shorter stays, network fixes every 30 s
    /// everywhere, more false visits.
    case responsive
    /// GNSS for the fences a walker passes where the regions cannot protect them, not at
    /// driving speed nor during a visit past its first 5 minutes: every fence passed is
    /// entered, at many times the energy where places cluster.
    case passages
}

/// A reason to look for a stop now: a place was entered, or the platform said the user became
/// still, at `seconds`; the stay has moved on `moves` times since; the platform reported the
/// entry of `placeID`'s region and not yet its exit.
public struct VisitCue: Hashable, Sendable, Codable {
    /// When the place was entered (or the platform said the user became still), seconds.
    public var seconds: Double
    /// How many times the stay has begun again since.
    public var moves = 0
    /// The place whose region the platform reported entered, until it reports the exit (`place`
    /// in JSON): while it has not and no visit names a place, the engine keeps watching (a walk
    /// from the fence's edge to the door can take longer than the burst, and a return after a
    /// short way out brings no second entry when the platform never reported the exit).
    public var placeID: String?

    /// A cue at `seconds`, the stay not yet moved on.
    public init(seconds: Double, placeID: String? = nil) {
        self.seconds = seconds
        self.placeID = placeID
    }

    private enum CodingKeys: String, CodingKey {
        case seconds, moves
        case placeID = "place"
    }
}
