@testable import ContractHarness
import Foundation
import MockCore
import Testing

/// A throttled event stream in process: each write handed over in pieces of the pacing's
/// chunk size, as a socket writes a paced body.
@Suite struct InProcessStreamPacingTests {
    @Test func aThrottledStreamArrivesInPiecesOfTheChunkSize() async throws {
        let stream = InProcessStreamTests.three
        let outcome = Outcome.eventStream(stream).throttled(.bytesPerSecond(5_000, chunkSize: 5))
        let played = try await InProcessStreamTests.play(outcome, timeScale: 0.01)
        #expect(played.error == nil)
        let whole = stream.events.reduce(into: Data()) { $0.append($1.encoded) }
        #expect(played.chunks.reduce(into: Data()) { $0.append($1.data) } == whole)
        // Every piece is 5 bytes but the last of each event (events are written one by one).
        #expect(played.chunks.map(\.data.count) == stream.events.flatMap { event -> [Int] in
            let size = event.encoded.count
            return Array(repeating: 5, count: size / 5) + (size % 5 == 0 ? [] : [size % 5])
        })
        #expect(played.events == ["a", "b", "c"])
        // The journal keeps the writes, not the pieces.
        #expect(played.engine.journal.entries().last?.transcript?.records.map(\.payload) == stream.events.map(\.encoded))
    }

    /// A burst through a throttle: the pieces cut across events.
    @Test func aBurstThroughAThrottleIsCutAcrossEvents() async throws {
        let outcome = Outcome.eventStream(InProcessStreamTests.three).streamFaulted(.burst).throttled(.bytesPerSecond(7_000, chunkSize: 7))
        let played = try await InProcessStreamTests.play(outcome, timeScale: 0.01)
        #expect(played.error == nil)
        #expect(played.chunks.dropLast().allSatisfy { $0.data.count == 7 })
        #expect(played.events == ["a", "b", "c"])
    }

    /// A pause between pieces longer than the request's timeout times the request out.
    @Test func aPauseBetweenPiecesPastTheTimeoutTimesOut() async throws {
        let outcome = Outcome.eventStream(InProcessStreamTests.three).throttled(.bytesPerSecond(1, chunkSize: 4))
        let played = try await InProcessStreamTests.play(outcome, timeout: 1)
        #expect(played.error == .timedOut)
        #expect(played.chunks.map(\.data) == [Data("id: ".utf8)])
        #expect(played.engine.journal.entries().last?.transcript?.ending?.how == .clientTimedOut)
    }
}
