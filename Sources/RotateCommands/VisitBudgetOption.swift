import EventEngine
import PlatformFacts
import RotateJSON

/// The value of `--visit-budget`: a preset (`VisitBudget`) or an average power the engine may
/// spend on location, mW (the `passages` preset held to it: `EnergyBudget`).
enum VisitBudgetOption: Hashable {
    case preset(VisitBudget)
    case milliwatts(Double)

    /// The value's form in `--help`.
    static let valueName = "low-power|balanced|responsive|passages|milliwatts"
    /// The range a budget in milliwatts must lie in: above zero, at most a GNSS receiver kept on
    /// four times over.
    static let milliwattRange = 0.001...1_000.0

    /// The option `name` as given, else its declared default.
    ///
    /// - Throws: `CommandError.usage` for a value that is neither a preset nor a number in
    ///   `milliwattRange`.
    static func parse(_ arguments: Arguments, _ name: String = "--visit-budget") throws(CommandError) -> VisitBudgetOption {
        let text = try arguments.text(name)
        if let preset = VisitBudget(rawValue: text) { return .preset(preset) }
        guard let value = DecimalText.double(text), value.isFinite else {
            throw .usage(
                "option '\(name)' must be low-power, balanced, responsive, passages or a budget in milliwatts, got '\(text)'")
        }
        guard milliwattRange.contains(value) else {
            throw .usage(
                "option '\(name)' in milliwatts must be in \(milliwattRange.lowerBound)...\(milliwattRange.upperBound), got \(value)")
        }
        return .milliwatts(value)
    }

    /// The engine's visit settings for this value, a budget charged at `energy`'s costs.
    func settings(energy: PlatformProfile.Energy) -> VisitSettings {
        switch self {
        case .preset(let preset): VisitSettings(budget: preset)
        case .milliwatts(let milliwatts): VisitSettings(budgetMilliwatts: milliwatts, energy: energy)
        }
    }
}
