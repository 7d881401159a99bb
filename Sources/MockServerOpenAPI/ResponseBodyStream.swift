import Foundation
import MockCore

/// A response body as a socket delivers it: `pacing.chunkSize` bytes, then a pause of
/// `pacing.interval` on the transport's clock, and so on; then `failure` if the
/// connection is lost before the end (a truncated body). A pause longer than the
/// transport's timeout fails with `URLError(.timedOut)`, cancellation with
/// `URLError(.cancelled)`. `finish` runs once the body ended, either way.
struct ResponseBodyStream: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let bytes: ArraySlice<UInt8>
    let pacing: BodyPacing?
    let failure: URLError?
    let transport: MockEngineTransport
    let finish: @Sendable () -> Void

    func makeAsyncIterator() -> Iterator { Iterator(stream: self, rest: bytes) }

    struct Iterator: AsyncIteratorProtocol {
        let stream: ResponseBodyStream
        var rest: ArraySlice<UInt8>
        var started = false
        var ended = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !ended else { return nil }
            do {
                if rest.isEmpty {
                    ended = true
                    if let failure = stream.failure { throw failure }
                    stream.finish()
                    return nil
                }
                if started, let pacing = stream.pacing { try await stream.transport.waitForByte(pacing.interval) }
                started = true
                let size = stream.pacing?.chunkSize ?? rest.count
                defer { rest = rest.dropFirst(size) }
                return rest.prefix(size)
            } catch {
                ended = true
                stream.finish()
                throw error
            }
        }
    }
}
