import NIOCore
import NIOHTTP1

/// Request parts waiting for the response under way (pipelining): a ring made when the
/// first part has to wait. Most connections and every HTTP/2 stream never queue, and a
/// ring made with each handler would be an allocation and a free per stream.
struct PartQueue {
    private var parts: CircularBuffer<HTTPServerRequestPart>?

    var isEmpty: Bool { parts?.isEmpty ?? true }

    /// The part queued last, if any.
    var last: HTTPServerRequestPart? { parts?.last }

    mutating func append(_ part: HTTPServerRequestPart) {
        if parts == nil { parts = CircularBuffer(initialCapacity: 4) }
        parts!.append(part)
    }

    mutating func popFirst() -> HTTPServerRequestPart? { parts?.popFirst() }

    mutating func removeAll() { parts = nil }
}
