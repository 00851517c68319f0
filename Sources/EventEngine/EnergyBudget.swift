import PlatformFacts

/// A battery budget for the location the engine asks for beyond the platform's region
/// monitoring (`VisitSettings.budget`): an average power, kept by an account.
///
/// The account (`EnergyAccount`, in the stored state) earns `milliwatts` every second and holds
/// at most `windowSeconds` of it; the engine charges it, at each input, for the location service
/// in force since the previous one (GNSS at `energy.gnssMilliwatts` while it asked for
/// continuous updates, one network position and its wake-up per interval of network fixes,
/// nothing for significant changes) and, when an output asks for one fix, for that fix
/// (`oneFixGNSSSeconds` of GNSS, or one network position). The platform's own monitoring and
/// the wake-ups of its region events are not charged: the OS spends them whatever the engine
/// asks. Over any span of T seconds the engine thus asks for at most `milliwatts · T` plus one
/// window's worth, plus what one gap between inputs and one fix cost.
///
/// As the account empties, the engine gives up goals in a fixed order (`VisitGoal`), each time
/// taking the next cheaper service: at half of the window, no GNSS for the fences passed and
/// one-off fixes from the network (`passageEntries`); at 30 %, no GNSS at all (`precision`); at
/// 15 %, network fixes at a quarter of the rate (`latency`); at 5 %, no fixes of its own for
/// stops (`stops`, where the regions cannot protect every place); empty, not even the fix after
/// a refresh exit (`reselection`). Each output says what is given up (`MonitorOutput.givenUp`),
/// so a host learns when its budget makes a goal unreachable.
public struct EnergyBudget: Hashable, Sendable {
    /// The average power the engine may spend on location, mW (> 0; the same number as the mWh
    /// per hour it may spend).
    public var milliwatts: Double
    /// The account holds at most this long of the budget, seconds (> 0): what a burst of stops
    /// may spend beyond the average. A new account starts full.
    public var windowSeconds = 3_600.0
    /// What the services cost (`PlatformProfile.energy`).
    public var energy: PlatformProfile.Energy
    /// GNSS time charged for one fix from the receiver (`LocationRequest.oneFix`), seconds: a warm
    /// receiver fixes in 1-5 s under the sky, iOS's figure is unpublished (1-10 s), and indoors
    /// the request runs to its timeout.
    public var oneFixGNSSSeconds = 10.0

    /// A budget of `milliwatts` on average, charged at `energy`'s costs.
    public init(milliwatts: Double, energy: PlatformProfile.Energy = .iOS) {
        self.milliwatts = milliwatts
        self.energy = energy
    }

    /// What a full account holds, J.
    public var capacityJoules: Double { milliwatts / 1_000 * windowSeconds }

    /// The energy `request` costs over `seconds` in force, J: a one-off fix costs nothing here
    /// (`oneFixJoules(fromNetwork:)`, charged when it is asked for).
    public func joules(of request: LocationRequest, over seconds: Double) -> Double {
        guard seconds > 0 else { return 0 }
        switch request {
        case .none, .significantChanges, .oneFix: return 0
        case .continuous: return energy.gnssMilliwatts / 1_000 * seconds
        case .networkFixes(let interval): return networkFixJoules * seconds / max(interval, 1)
        }
    }

    /// One Wi-Fi or cell position and the wake-up that takes it, J.
    public var networkFixJoules: Double { energy.networkFixJoules + energy.wakeupJoules }

    /// One fix asked for once (`LocationRequest.oneFix`), J: a network position, or
    /// `oneFixGNSSSeconds` of GNSS.
    public func oneFixJoules(fromNetwork: Bool) -> Double {
        fromNetwork ? networkFixJoules : energy.gnssMilliwatts / 1_000 * oneFixGNSSSeconds
    }

    /// How many goals (`VisitGoal.allCases`, in order) an account holding `balanceJoules` gives
    /// up: none above half of the capacity, one above 30 %, two above 15 %, three above 5 %,
    /// four above empty, all five once empty.
    public func goalsGivenUp(balanceJoules: Double) -> Int {
        let share = balanceJoules / capacityJoules
        return share > 0.5 ? 0 : share > 0.3 ? 1 : share > 0.15 ? 2 : share > 0.05 ? 3 : share > 0 ? 4 : 5
    }

    /// The account at `seconds`, after `request` was in force since its last charge, less
    /// `oneOffJoules` spent then: earned and charged second by second, held to the capacity, and
    /// the one-off spent last (it may fall below zero by what one span and one fix cost).
    public func account(_ account: EnergyAccount, until seconds: Double, under request: LocationRequest, oneOffJoules: Double = 0)
        -> EnergyAccount
    {
        let elapsed = max(0, seconds - account.seconds)
        let span = joules(of: request, over: elapsed)
        guard elapsed > 0 || oneOffJoules > 0 else { return account }
        // The rate is constant over the span: held to the capacity once at its end, the balance is
        // what holding it every second gives.
        let balance = min(capacityJoules, account.balanceJoules + milliwatts / 1_000 * elapsed - span) - oneOffJoules
        return EnergyAccount(
            balanceJoules: balance, seconds: max(seconds, account.seconds), givenUp: goalsGivenUp(balanceJoules: balance),
            spentJoules: account.spentJoules + span + oneOffJoules)
    }
}

/// What the engine gives up, in this order, to stay within a battery budget (`EnergyBudget`).
public enum VisitGoal: String, Hashable, Sendable, Codable, CaseIterable {
    /// Entries of the fences a user passes where the regions cannot protect every place (GNSS
    /// kept on for them) and GNSS for the one fix after a region event: gone, network fixes
    /// instead (`"passage_entries"`). A wake-up on every refresh exit of a walk through dense
    /// places is the largest cost that buys no stop.
    case passageEntries = "passage_entries"
    /// Stays confirmed with GNSS: gone, so visits outdoors are attributed from Wi-Fi positions
    /// 40-60 m off (more misattributed and false visits).
    case precision
    /// Network fixes at the configured intervals: a quarter of the rate, so stops are seen
    /// minutes later and short ones not at all.
    case latency
    /// Stops where the regions cannot protect every place: no fixes of the engine's own but the
    /// one after leaving the refresh region; visits come only from fixes the platform delivers.
    case stops
    /// The fix after leaving the refresh region: none asked for, the next significant change
    /// (iOS) or background update (Android) reselects, minutes later; places the old selection
    /// did not monitor may be passed unseen meanwhile.
    case reselection
}

/// The battery budget's account (`MonitorState.energy`): what it holds, as of when, how many
/// goals that gives up, and what it has been charged in all.
public struct EnergyAccount: Hashable, Sendable, Codable {
    /// What the account holds, J (`balance_j`).
    public var balanceJoules: Double
    /// When it was last charged, seconds (`t`).
    public var seconds: Double
    /// How many goals (`VisitGoal.allCases`, in order) the balance gives up (`given_up`).
    public var givenUp: Int
    /// Everything charged since the account opened, J (`spent_j`).
    public var spentJoules: Double

    /// An account holding `balanceJoules` at `seconds`.
    public init(balanceJoules: Double, seconds: Double, givenUp: Int = 0, spentJoules: Double = 0) {
        self.balanceJoules = balanceJoules
        self.seconds = seconds
        self.givenUp = givenUp
        self.spentJoules = spentJoules
    }

    /// The goals the balance gives up, in order.
    public var goalsGivenUp: [VisitGoal] { Array(VisitGoal.allCases.prefix(givenUp)) }

    private enum CodingKeys: String, CodingKey {
        case balanceJoules = "balance_j"
        case seconds = "t"
        case givenUp = "given_up"
        case spentJoules = "spent_j"
    }

    /// Decodes and checks: finite figures, `given_up` within 0...5.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        balanceJoules = try container.decode(Double.self, forKey: .balanceJoules)
        seconds = try container.decode(Double.self, forKey: .seconds)
        givenUp = try container.decode(Int.self, forKey: .givenUp)
        spentJoules = try container.decodeIfPresent(Double.self, forKey: .spentJoules) ?? 0
        guard balanceJoules.isFinite, seconds.isFinite, spentJoules.isFinite, (0...VisitGoal.allCases.count).contains(givenUp) else {
            throw DecodingError.dataCorruptedError(
                forKey: .givenUp, in: container,
                debugDescription: "an energy account needs finite figures and given_up within 0...\(VisitGoal.allCases.count)")
        }
    }
}
