import Foundation
import TestSupport
import Testing

/// Runs `attempt` while a `PoolWatch` probes the shared pool, and judges the first
/// attempt during which no probe waited `margin` or longer: a timed claim whose margin the
/// pool's own stalls exceeded proves nothing either way, so such an attempt is run again,
/// at most `attempts` times in all. Returns nil when every attempt was held past the
/// margin, after recording that as the test's issue (nothing was shown).
func onAnsweringPool<T>(margin: TimeInterval, attempts: Int = 3,
                        sourceLocation: SourceLocation = #_sourceLocation,
                        _ attempt: () async throws -> T) async throws -> T? {
    var held: [TimeInterval] = []
    for _ in 0..<attempts {
        let watch = PoolWatch(priority: Task.currentPriority)
        let result: T
        do {
            result = try await attempt()
        } catch {
            watch.stop()
            throw error
        }
        let longest = watch.stop()
        if longest < margin { return result }
        held.append(longest)
    }
    let waits = held.map { String(format: "%.2f", $0) }.joined(separator: ", ")
    Issue.record("the shared pool was held for \(waits) s during the \(attempts) attempts, past the \(margin) s margin: nothing was shown",
                 sourceLocation: sourceLocation)
    return nil
}
