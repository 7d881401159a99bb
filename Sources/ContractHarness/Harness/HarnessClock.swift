import Foundation

/// Waiting and timing on the clock a suite runs on (`SuiteConfiguration.clock`): the real
/// one, or one a test moves itself.
extension Clock where Duration == Swift.Duration {
    /// Sleeps `seconds` on this clock; false when the sleep was cancelled instead.
    func sleepOrCancel(seconds: TimeInterval) async -> Bool {
        do {
            try await sleep(for: .seconds(seconds))
            return true
        } catch {
            return false
        }
    }

    /// A stopwatch started now on this clock: each call reads the seconds since.
    func stopwatch() -> @Sendable () -> TimeInterval {
        let start = now
        return { start.duration(to: self.now).timeInterval }
    }
}

extension Duration {
    /// The duration in seconds.
    var timeInterval: TimeInterval {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
