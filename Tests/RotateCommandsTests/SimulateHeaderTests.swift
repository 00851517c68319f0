import Testing
import WalkSimulator

@testable import RotateCommands

/// The first line of `rotate simulate` names its walks in words: no kind doubles the noun, and one
/// walk is not "1 walks".
@Suite struct SimulateHeaderTests {
    @Test(arguments: [nil] + WalkKind.allCases.map(Optional.some))
    func walksAreNamedOnceAndCounted(kind: WalkKind?) {
        let one = SimulateCommand.walksText(1, kind), many = SimulateCommand.walksText(3, kind)
        for text in [one, many] {
            #expect(!text.contains("walk walk") && !text.contains("errands walk"), "\(text)")
        }
        #expect(one.hasPrefix("1 ") && many.hasPrefix("3 "))
        // The plural adds an s to the noun, wherever the noun stands.
        #expect(many.dropFirst(2).count == one.dropFirst(2).count + 1, "\(one) / \(many)")
    }
}
