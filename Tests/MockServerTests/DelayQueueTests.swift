import NIOCore
import NIOEmbedded
import Testing
@testable import MockServer

/// The per-loop queue of delayed responses, on an `EmbeddedEventLoop`'s virtual clock.
@Suite struct DelayQueueTests {
    /// A loop, its queue, and a log of what ran when (in ms of virtual time).
    final class Rig {
        let loop = EmbeddedEventLoop()
        lazy var queue = DelayQueue(eventLoop: loop)
        var ran: [(label: String, at: Int64)] = []
        let start: NIODeadline

        init() { start = loop.now }

        func schedule(_ label: String, inMilliseconds ms: Int64) {
            queue.schedule(at: loop.now + .milliseconds(ms)) { [self] in
                ran.append((label, (loop.now - start).nanoseconds / 1_000_000))
            }
        }

        func advance(_ ms: Int64) { loop.advanceTime(by: .milliseconds(ms)) }
    }

    @Test func runsInDeadlineOrderAndNeverEarly() {
        let rig = Rig()
        rig.schedule("c", inMilliseconds: 300)
        rig.schedule("a", inMilliseconds: 100)
        rig.schedule("d", inMilliseconds: 300)
        rig.schedule("b", inMilliseconds: 200)
        rig.advance(99)
        #expect(rig.ran.isEmpty)
        rig.advance(1)
        #expect(rig.ran.map(\.label) == ["a"])
        rig.advance(150)
        #expect(rig.ran.map(\.label) == ["a", "b"])
        rig.advance(50)
        // Equal deadlines keep their arrival order.
        #expect(rig.ran.map(\.label) == ["a", "b", "c", "d"])
        #expect(rig.ran.map(\.at) == [100, 200, 300, 300])
        #expect(rig.queue.count == 0)
    }

    @Test func anEarlierDeadlineRearmsTheTimer() {
        let rig = Rig()
        rig.schedule("late", inMilliseconds: 500)
        rig.advance(10)
        rig.schedule("early", inMilliseconds: 40)
        rig.advance(40)
        #expect(rig.ran.map(\.label) == ["early"])
        #expect(rig.ran.map(\.at) == [50])
        rig.advance(449)
        #expect(rig.ran.count == 1)
        rig.advance(1)
        #expect(rig.ran.map(\.label) == ["early", "late"])
    }

    @Test func actionsMayScheduleMore() {
        let rig = Rig()
        rig.queue.schedule(at: rig.loop.now + .milliseconds(100)) {
            rig.ran.append(("first", 100))
            rig.schedule("second", inMilliseconds: 100)
            rig.schedule("past", inMilliseconds: -5)
        }
        rig.advance(100)
        #expect(rig.ran.map(\.label) == ["first", "past"])
        rig.advance(100)
        #expect(rig.ran.map(\.label) == ["first", "past", "second"])
        #expect(rig.ran.last?.at == 200)
    }

    /// Many entries in and out: order holds, nothing is lost, storage is reused. (Rounds of
    /// 400: in a debug build, rounds of 2,000 held a thread of the test run's task pool for a
    /// minute, which its neighbours waited for.)
    @Test func manyRoundsKeepOrderAndLoseNothing() {
        let rig = Rig()
        var expected: [String] = []
        for round in 0..<3 {
            for index in 0..<400 {
                let delay = Int64(200 + (index * 7919) % 50)  // out of order within 50 ms
                rig.schedule("\(round)-\(delay)-\(index)", inMilliseconds: delay)
            }
            rig.advance(260)
            #expect(rig.queue.count == 0)
            expected.append(contentsOf: (0..<400).map { index in (index, Int64(200 + (index * 7919) % 50)) }
                .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
                .map { "\(round)-\($0.1)-\($0.0)" })
        }
        #expect(rig.ran.map(\.label) == expected)
        #expect(zip(rig.ran, rig.ran.dropFirst()).allSatisfy { $0.at <= $1.at || $0.label.prefix(2) != $1.label.prefix(2) })
    }
}
