import Foundation
import FuzzSupport
import Scenarios

/// Scenario-file parsing on arbitrary bytes: a bad file is a `FixtureError` with at least
/// one problem naming a JSON path, never a crash; a good one round-trips its name.
enum FuzzScenario {
    static func check(_ data: Data) {
        do {
            let scenario = try ScenarioFile.parse(data, file: "fuzz.json")
            if scenario.name.isEmpty { FuzzDriver.fail("a scenario without a name was accepted") }
        } catch {
            if error.problems.isEmpty { FuzzDriver.fail("refused with no problem named") }
            if let bad = error.problems.first(where: { !$0.jsonPath.hasPrefix("$") }) {
                FuzzDriver.fail("a problem without a JSON path: \(bad)")
            }
        }
    }
}

#if FUZZING
// libFuzzer's own `main` calls this; SwiftPM's `main` alias (`fuzz_scenario_main`) hands the
// process to libFuzzer with the same target. Both paths run `FuzzScenario.check`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzScenario.check(start.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

@_cdecl("fuzz_scenario_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.runLibFuzzer(argc, argv) { start, count in fuzzOne(start, count) }
}
#else
@main
enum Replay {
    static func main() {
        FuzzDriver.replay(Array(CommandLine.arguments.dropFirst()), FuzzScenario.check)
    }
}
#endif
