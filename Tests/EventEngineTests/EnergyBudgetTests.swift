import FencePlanner
import Foundation
import Geodesy
import PlatformFacts
import Testing

@testable import EventEngine

/// The battery budget: its account against a second-by-second ledger, and an engine held to it
/// by a host that counts what it runs.
@Suite struct EnergyBudgetTests {
    static let requests: [LocationRequest] = [
        .none, .significantChanges, .oneFix, .continuous(distanceFilterMeters: 0), .networkFixes(intervalSeconds: 20),
        .networkFixes(intervalSeconds: 120),
    ]

    /// Charged span by span, the account holds what a ledger stepping every 50 ms holds (earn,
    /// spend at the request's rate, hold to the capacity; a one-off fix spent at the span's end),
    /// and has spent the ledger's sum.
    @Test(arguments: 0..<6)
    func accountMatchesAStepwiseLedger(seed: UInt64) {
        var rng = SplitMix64(seed: 0xB0D6 ^ seed)
        let budget = EnergyBudget(milliwatts: rng.nextDouble(in: 1..<60))
        var account = EnergyAccount(balanceJoules: budget.capacityJoules * rng.nextDouble(in: 0..<1), seconds: 0)
        var ledger = account.balanceJoules
        var spent = 0.0
        let step = 0.05
        for _ in 0..<120 {
            let request = Self.requests[Int(rng.next() % UInt64(Self.requests.count))]
            let steps = Int(rng.next() % 4_000)
            let oneOff = request == .oneFix ? budget.oneFixJoules(fromNetwork: rng.next() % 2 == 0) : 0
            let rate: Double =
                switch request {
                case .continuous: budget.energy.gnssMilliwatts / 1_000
                case .networkFixes(let interval): (budget.energy.networkFixJoules + budget.energy.wakeupJoules) / interval
                case .none, .significantChanges, .oneFix: 0
                }
            for _ in 0..<steps {
                ledger = min(budget.capacityJoules, ledger + budget.milliwatts / 1_000 * step - rate * step)
                spent += rate * step
            }
            ledger -= oneOff
            spent += oneOff
            account = budget.account(account, until: account.seconds + Double(steps) * step, under: request, oneOffJoules: oneOff)
            #expect(abs(account.balanceJoules - ledger) < 1e-6 * budget.capacityJoules, "seed \(seed)")
            #expect(abs(account.spentJoules - spent) < 1e-6 * max(1, spent), "seed \(seed)")
            #expect(account.givenUp == budget.goalsGivenUp(balanceJoules: ledger))
        }
    }

    /// The goals given up grow as the balance falls: none with a full account, every one once it
    /// is empty, never fewer for less.
    @Test func lessInTheAccountNeverGivesUpLess() {
        let budget = EnergyBudget(milliwatts: 12)
        #expect(budget.goalsGivenUp(balanceJoules: budget.capacityJoules) == 0)
        #expect(budget.goalsGivenUp(balanceJoules: 0) == VisitGoal.allCases.count)
        var last = 0
        for i in stride(from: 1_000, through: -100, by: -1) {
            let givenUp = budget.goalsGivenUp(balanceJoules: budget.capacityJoules * Double(i) / 1_000)
            #expect(givenUp >= last)
            last = givenUp
        }
        #expect(last == VisitGoal.allCases.count)
    }

    /// What a host spends running what the engine asks, at the published costs: GNSS while it
    /// asks for continuous fixes, one network position per interval, each one-off fix.
    struct Host {
        var gnssSeconds = 0.0
        var networkFixes = 0
        var gnssOneFixes = 0
        var outputs: [MonitorOutput] = []
        func joules(_ budget: EnergyBudget) -> Double {
            budget.energy.gnssMilliwatts / 1_000 * (gnssSeconds + budget.oneFixGNSSSeconds * Double(gnssOneFixes))
                + (budget.energy.networkFixJoules + budget.energy.wakeupJoules) * Double(networkFixes)
        }
    }

    /// A walker crosses a town of 1,500 places of 100 m for two hours (the regions cannot
    /// protect every place: the engine would keep GNSS on), then stays far from every place for
    /// three hours. The host runs what each output asks for (a fix each second under GNSS, one
    /// per interval of network fixes, one a minute from significant changes) and counts it.
    static func run(_ visits: VisitSettings) throws -> Host {
        var settings = FenceMonitor.Settings()
        settings.visits = visits
        var monitor = try FenceMonitor(
            catalog: StoreVisitTests.crowdedCatalog(), configuration: RotationConfiguration(), settings: settings)
        var rng = SplitMix64(seed: 91)
        let start = StoreVisitTests.origin.destination(bearingDegrees: 225, distanceMeters: 1_400)
        func position(_ time: Double) -> Coordinate {
            // Two hours along a zigzag through the town at 1.3 m/s, then 40 km away, still.
            guard time < 7_200 else { return StoreVisitTests.origin.destination(bearingDegrees: 0, distanceMeters: 40_000) }
            let leg = Int(time / 900)
            let along = 1.3 * time.truncatingRemainder(dividingBy: 900)
            return start.destination(bearingDegrees: leg % 2 == 0 ? 45 : 135, distanceMeters: along)
                .destination(bearingDegrees: 90, distanceMeters: 100 * Double(leg))
        }
        var host = Host()
        var time = 0.0
        var output = monitor.handle(.fix(Fix(position(0), accuracyMeters: 8, timestampSeconds: 0), source: .wakeFix))
        host.outputs.append(output)
        while time < 18_000 {
            let next: Double
            let source: FixSource
            var accuracy = 8.0
            switch output.location {
            case .continuous:
                next = time + 1
                source = .continuous
                host.gnssSeconds += 1
            case .networkFixes(let interval):
                next = time + interval
                source = .network
                accuracy = 65
                host.networkFixes += 1
            case .oneFix:
                next = time + 2
                source = .wakeFix
                if output.oneFixFromNetwork {
                    host.networkFixes += 1
                    accuracy = 65
                } else {
                    host.gnssOneFixes += 1
                }
            case .none, .significantChanges:
                next = time + 60
                source = .significantChange
                accuracy = 100
            }
            time = next
            let jitter = accuracy > 20 ? rng.nextDouble(in: 0..<30) : 0
            let fix = Fix(
                position(time).destination(bearingDegrees: rng.nextDouble(in: 0..<360), distanceMeters: jitter), accuracyMeters: accuracy,
                timestampSeconds: time)
            output = monitor.handle(.fix(fix, source: source))
            host.outputs.append(output)
        }
        return host
    }

    /// Held to a budget below what the walk costs unbudgeted, the host spends at most the budget
    /// over the five hours plus one window's worth and one GNSS fix; the engine gives goals up on
    /// the way, in order, and none once the account has filled again far from every place.
    @Test(arguments: [6.0, 20.0])
    func anEngineHeldToABudgetSpendsWithinIt(milliwatts: Double) throws {
        let budgeted = VisitSettings(budgetMilliwatts: milliwatts)
        let budget = try #require(budgeted.budget)
        let held = try Self.run(budgeted)
        let free = try Self.run(VisitSettings(budget: .passages))
        let allowance = budget.milliwatts / 1_000 * 18_000 + budget.capacityJoules + budget.oneFixJoules(fromNetwork: false)
        #expect(free.joules(budget) > allowance, "unbudgeted: \(free.joules(budget)) J")
        #expect(held.joules(budget) <= allowance, "budgeted: \(held.joules(budget)) J of \(allowance)")
        #expect(held.outputs.contains { $0.givenUp.contains(.passageEntries) })
        for output in held.outputs {
            #expect(output.givenUp == Array(VisitGoal.allCases.prefix(output.givenUp.count)))
            if output.givenUp.contains(.precision) {
                #expect(!output.location.keepsGNSSOn || output.location == .oneFix && output.oneFixFromNetwork)
            }
        }
        #expect(held.outputs.last?.givenUp == [])
        #expect(free.outputs.allSatisfy { $0.givenUp.isEmpty })
    }
}
