import Foundation
import NIOCore

/// How many CPUs this process may actually run on: the fewest of NIO's count (which
/// reads cgroup CPU quotas and cpusets) and, on Linux, the scheduler affinity mask
/// (`taskset`, `docker --cpuset-cpus`, systemd's `CPUAffinity=`), which NIO does not read.
///
/// Why it matters: pinned to one core, one loop per machine core would make two loops
/// share it, each waiting behind the other's work, which lengthens tail latency.
package enum UsableCores {
    /// The CPUs this process may run on, at least 1.
    public static var count: Int {
        max(1, min(System.coreCount, affinityCount ?? Int.max))
    }

    /// CPUs in this process's affinity mask; nil where the platform has none. Read from
    /// `Cpus_allowed` in `/proc/self/status` (Swift's Glibc module does not expose
    /// `sched_getaffinity`, which needs `_GNU_SOURCE`).
    public static var affinityCount: Int? {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return affinityCount(status: status)
        #else
        return nil
        #endif
    }

    /// The CPUs set in a `/proc/PID/status` text's `Cpus_allowed:` hex mask (comma-grouped).
    static func affinityCount(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var count = 0
        for character in line.dropFirst("Cpus_allowed:".count) where character != "," && character != " " && character != "\t" {
            guard let nibble = character.hexDigitValue else { return nil }
            count += nibble.nonzeroBitCount
        }
        return count > 0 ? count : nil
    }
}
