import Foundation
import Testing
@testable import MockCore

/// The event stream player, step by step: no clock runs; each step says when it is due.
@Suite struct EventStreamPlayerTests {
    /// Three events 100 ms apart after a first one at once.
    static let three = EventStream([
        .text("a", id: "1"), .text("b", id: "2", delay: 0.1), .text("c", id: "3", delay: 0.1),
    ])

    static func steps(_ player: EventStreamPlayer, limit: Int = 100) -> [EventStreamPlayer.Step] {
        var player = player
        var steps: [EventStreamPlayer.Step] = []
        while steps.count < limit, let step = player.next() { steps.append(step) }
        return steps
    }

    static func write(_ events: ServerSentEvent..., at: TimeInterval) -> EventStreamPlayer.Step {
        .write(events.reduce(into: Data()) { $0.append($1.encoded) }, at: at)
    }

    /// What the writes of `steps` dispatch in a client, as data.
    static func dispatched(_ steps: [EventStreamPlayer.Step]) -> [String] {
        var bytes = Data()
        for case .write(let data, _) in steps { bytes.append(data) }
        return EventStreamParser.parse(bytes).dispatched.map(\.data)
    }

    static func near(_ a: TimeInterval, _ b: TimeInterval) -> Bool { abs(a - b) < 1e-9 }

    @Test func eachEventIsOneWriteAtItsDelayAfterThePreviousThenTheEnd() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three))
        #expect(steps.count == 4)
        #expect(steps.map(\.at).enumerated().allSatisfy { Self.near($1, [0, 0.1, 0.2, 0.2][$0]) })
        #expect(steps.first == Self.write(.text("a", id: "1"), at: 0))
        #expect(steps.last == .end(at: 0.2))
        #expect(Self.dispatched(steps) == ["a", "b", "c"])
    }

    @Test func theTimeScaleScalesEveryDelay() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, timeScale: 10))
        #expect(Self.near(steps[1].at, 1) && Self.near(steps[2].at, 2) && Self.near(steps[3].at, 2))
    }

    @Test func aRepeatedStreamPlaysItsListThatManyTimes() {
        var stream = Self.three
        stream.repetition = .times(2)
        let steps = Self.steps(EventStreamPlayer(stream: stream))
        #expect(Self.dispatched(steps) == ["a", "b", "c", "a", "b", "c"])
        #expect(steps.last.map { Self.near($0.at, 0.4) } == true)
        if case .end = steps.last {} else { Issue.record("ends with \(String(describing: steps.last))") }
    }

    @Test func aTickerNeverEnds() {
        let stream = EventStream([.text("tick", delay: 1)], repetition: .forever, autoIDs: true)
        let steps = Self.steps(EventStreamPlayer(stream: stream), limit: 1000)
        #expect(steps.count == 1000)
        #expect(Self.near(steps[999].at, 1000))
        let parsed = EventStreamParser.parse(steps.reduce(into: Data()) { if case .write(let d, _) = $1 { $0.append(d) } })
        #expect(parsed.dispatched.count == 1000)
        #expect(parsed.lastEventID == "1000")
    }

    /// A file cannot describe it; a Swift-built one plays one round instead of writing
    /// without end at once.
    @Test func aTickerWithoutDelaysPlaysOneRound() {
        let stream = EventStream([.text("a"), .text("b")], repetition: .forever)
        let steps = Self.steps(EventStreamPlayer(stream: stream))
        #expect(Self.dispatched(steps) == ["a", "b"])
        #expect(steps.last == .end(at: 0))
    }

    @Test func aStreamKeptOpenStallsForEverAfterItsLastEvent() {
        var stream = Self.three
        stream.keepOpen = true
        let steps = Self.steps(EventStreamPlayer(stream: stream))
        #expect(steps.last.map { if case .stall(let at, nil) = $0 { return Self.near(at, 0.2) } else { return false } } == true)
        #expect(Self.dispatched(steps) == ["a", "b", "c"])
    }

    @Test func anEmptyStreamEndsAtOnce() {
        #expect(Self.steps(EventStreamPlayer(stream: EventStream([]))) == [.end(at: 0)])
        #expect(Self.steps(EventStreamPlayer(stream: EventStream([], repetition: .forever))) == [.end(at: 0)])
    }

    // MARK: Last-Event-ID

    @Test func aClientThatReconnectsWithLastEventIDResumesAfterThatEvent() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, lastEventID: "2"))
        #expect(Self.dispatched(steps) == ["c"])
        // Its delay is its own, from the start of this response.
        #expect(Self.near(steps[0].at, 0.1))
        #expect(EventStreamPlayer(stream: Self.three, lastEventID: "2").firstIndex == 2)
    }

    @Test func anIDTheStreamNeverSentStartsFromTheBeginning() {
        for id in ["", "9", "nope"] {
            #expect(Self.dispatched(Self.steps(EventStreamPlayer(stream: Self.three, lastEventID: id))) == ["a", "b", "c"], "id \(id)")
        }
    }

    @Test func theLastIDResumesAtTheEnd() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, lastEventID: "3"))
        #expect(steps == [.end(at: 0)])
    }

    @Test func numberedEventsResumeAcrossRounds() {
        let stream = EventStream([.text("x", delay: 1), .text("y", delay: 1)], repetition: .times(3), autoIDs: true)
        let player = EventStreamPlayer(stream: stream, lastEventID: "4")
        #expect(player.firstIndex == 4)
        let steps = Self.steps(player)
        let parsed = EventStreamParser.parse(steps.reduce(into: Data()) { if case .write(let d, _) = $1 { $0.append(d) } })
        #expect(parsed.dispatched.map(\.data) == ["x", "y"])
        #expect(parsed.dispatched.map(\.lastEventID) == ["5", "6"])
        // A number past the end, or of an event with an ID of its own, is unknown: from the start.
        #expect(EventStreamPlayer.resumeIndex(of: "7", in: stream) == 0)
        var mixed = stream
        mixed.events[1].id = "y-id"
        #expect(EventStreamPlayer.resumeIndex(of: "2", in: mixed) == 0)
        #expect(EventStreamPlayer.resumeIndex(of: "y-id", in: mixed) == 2)
        #expect(EventStreamPlayer.resumeIndex(of: "3", in: mixed) == 3)
    }

    @Test func aTickerResumesAfterItsNumber() {
        let stream = EventStream([.text("tick", delay: 1)], repetition: .forever, autoIDs: true)
        var player = EventStreamPlayer(stream: stream, lastEventID: "1000")
        guard case .write(let bytes, _)? = player.next() else { Issue.record("no write"); return }
        #expect(EventStreamParser.parse(bytes).lastEventID == "1001")
    }

    // MARK: Faults

    @Test func aStallDelaysTheNextEventByItsDuration() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .stall(after: 1, duration: 5)))
        #expect(steps.count == 5)
        #expect({ if case .stall(let at, let until?) = steps[1] { return Self.near(at, 0.1) && Self.near(until, 5.1) } else { return false } }())
        #expect(Self.near(steps[2].at, 5.1) && Self.near(steps[3].at, 5.2))
        #expect(Self.dispatched(steps) == ["a", "b", "c"])
    }

    @Test func aStallForEverEndsThePlay() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .stall(after: 2, duration: nil)))
        #expect(Self.dispatched(steps) == ["a", "b"])
        #expect(steps.last.map { if case .stall(let at, nil) = $0 { return Self.near(at, 0.2) } else { return false } } == true)
    }

    @Test func aStallBeforeTheFirstEvent() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .stall(after: 0, duration: 2)))
        #expect(steps.first == .stall(at: 0, until: 2))
        #expect(Self.near(steps[1].at, 2) && Self.near(steps[2].at, 2.1))
    }

    @Test func aCleanDropEndsTheStreamEarlyAsAFinishedOne() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .drop(after: 2, clean: true)))
        #expect(Self.dispatched(steps) == ["a", "b"])
        #expect(steps.last.map { if case .end(let at) = $0 { return Self.near(at, 0.2) } else { return false } } == true)
    }

    @Test func aDropResetsWhenTheNextEventIsDue() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .drop(after: 1, clean: false)))
        #expect(Self.dispatched(steps) == ["a"])
        #expect(steps.last == .drop(at: 0.1))
    }

    @Test func anEarlyEndHasNoTerminator() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .endEarly(after: 1)))
        #expect(Self.dispatched(steps) == ["a"])
        #expect(steps.last == .endWithoutTerminator(at: 0.1))
    }

    @Test func aFaultAfterTheLastEventTakesThePlaceOfTheEnd() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .drop(after: 3, clean: false)))
        #expect(Self.dispatched(steps) == ["a", "b", "c"])
        #expect(steps.last.map { if case .drop(let at) = $0 { return Self.near(at, 0.2) } else { return false } } == true)
    }

    @Test func aFaultAfterMoreEventsThanTheStreamHasNeverStrikes() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .endEarly(after: 9)))
        #expect(steps.last.map { if case .end = $0 { return true } else { return false } } == true)
    }

    @Test func aSlowDripAddsItsIntervalToEveryDelay() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .slowDrip(interval: 1), timeScale: 2))
        #expect([steps[0].at, steps[1].at, steps[2].at].enumerated().allSatisfy { Self.near($1, [2, 4.2, 6.4][$0]) })
        #expect(Self.dispatched(steps) == ["a", "b", "c"])
    }

    @Test func aBurstWritesEveryEventInOneWriteAtOnce() {
        var stream = Self.three
        stream.repetition = .times(2)
        let steps = Self.steps(EventStreamPlayer(stream: stream, fault: .burst))
        #expect(steps.count == 2)
        #expect(steps[0].at == 0)
        #expect(Self.dispatched(steps) == ["a", "b", "c", "a", "b", "c"])
        #expect(steps[1] == .end(at: 0))
    }

    /// A stream a scenario file may give (a million rounds) is not made whole in memory:
    /// its burst comes in writes of at most `burstLimit` bytes (and an event), all at once.
    @Test func aHugeBurstComesInBoundedWritesAtOnce() {
        let stream = EventStream([.text(String(repeating: "x", count: 100))], repetition: .times(1_000_000))
        var player = EventStreamPlayer(stream: stream, fault: .burst)
        let event = stream.events[0].encoded.count
        var events = 0
        for _ in 0..<3 {
            guard case .write(let bytes, let at)? = player.next() else {
                Issue.record("a burst's write expected")
                return
            }
            #expect(at == 0)
            #expect(bytes.count <= EventStreamPlayer.burstLimit + event)
            #expect(bytes.count % event == 0)
            events += bytes.count / event
        }
        #expect(events > 3 * (EventStreamPlayer.burstLimit / event) - 3)
    }

    @Test func aTickersBurstIsItsFirstRoundThenItsPace() {
        let stream = EventStream([.text("a", delay: 1), .text("b", delay: 1)], repetition: .forever)
        let steps = Self.steps(EventStreamPlayer(stream: stream, fault: .burst), limit: 3)
        #expect(Self.dispatched([steps[0]]) == ["a", "b"])
        #expect(steps[0].at == 0)
        #expect(Self.near(steps[1].at, 1) && Self.near(steps[2].at, 2))
    }

    @Test func aMalformedEventTakesThePlaceOfTheNextOne() {
        let stream = EventStream([.json(["t": "one"]), .json(["t": "two"], delay: 0.1), .json(["t": "three"], delay: 0.1)])
        let steps = Self.steps(EventStreamPlayer(stream: stream, fault: .malformed(after: 1)))
        let data = Self.dispatched(steps)
        #expect(data.count == 3)
        #expect(data[0] == #"{"t":"one"}"# && data[2] == #"{"t":"three"}"#)
        #expect(data[1].contains("\u{FFFD}") && JSONValue(parsing: Data(data[1].utf8)) == nil)
        #expect(steps.last == .end(at: 0.2))
    }

    /// A close frame is a WebSocket's: an event stream given one ends cleanly.
    @Test func aCloseCodeEndsAnEventStreamCleanly() {
        let steps = Self.steps(EventStreamPlayer(stream: Self.three, fault: .close(after: 1, code: 1011, reason: "")))
        #expect(Self.dispatched(steps) == ["a"])
        #expect(steps.last == .end(at: 0.1))
        #expect(Self.steps(EventStreamPlayer(stream: Self.three, fault: .closeWithoutCode(after: 0))) == [.end(at: 0)])
    }

    /// Every fault, each a different ending or timing: none is played as another.
    @Test(arguments: [
        StreamFault.stall(after: 1, duration: 5), .stall(after: 1, duration: nil), .drop(after: 1, clean: true), .drop(after: 1, clean: false),
        .slowDrip(interval: 1), .burst, .malformed(after: 1), .endEarly(after: 1),
    ])
    func everyFaultChangesThePlay(_ fault: StreamFault) {
        #expect(Self.steps(EventStreamPlayer(stream: Self.three, fault: fault)) != Self.steps(EventStreamPlayer(stream: Self.three)))
    }

    @Test func aPlansPlayerUsesItsStreamAndFault() {
        var plan = ResponsePlan(status: 200)
        #expect(EventStreamPlayer(plan: plan, lastEventID: nil) == nil)
        plan.eventStream = Self.three
        plan.streamFault = .endEarly(after: 1)
        let player = EventStreamPlayer(plan: plan, lastEventID: "1")
        #expect(player.map { Self.dispatched(Self.steps($0)) } == ["b"])
        #expect(player.map { Self.steps($0).last } == .endWithoutTerminator(at: 0.2))
    }
}
