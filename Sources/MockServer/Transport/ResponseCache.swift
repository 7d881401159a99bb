import Foundation
import NIOCore
import Scenarios

/// Whole HTTP/1.1 answers of one event loop, head and body encoded once, written again as
/// they are while a plan brings the same header list and the same body bytes.
///
/// Most answers repeat: a fixture's body is one `Data` (a rendered template is kept per
/// base URL, a page in the page cache, an image in its asset) and its headers one shared
/// list. A hit costs two identity checks and one write; a miss built the buffer anyway,
/// and keeping it only retains it. Measured with `Benchmarks/instructions.sh` on `/menu`:
/// the head and the copied body were about 3,500 of 46,500 instructions per request (#24).
///
/// Identity, not equality: a kept entry retains the plan's header list and body, so while
/// it is kept no other list or body can take over their storage, and the same storage
/// means the same bytes (both are values: a change would have copied them). That holds
/// for a body that owns its bytes, as `ResponsePlan.body` requires: a `Data` made with
/// `bytesNoCopy` and no deallocator over a buffer that is later rewritten would not.
///
/// Bounded: `slots` entries of at most `maxBodyBytes` of body each, replaced by the CLOCK
/// rule (an entry hit since the hand last passed it gets a second chance), so a stream of
/// answers that never repeat (a transform, a created product) cannot push out the ones that
/// do. Used only on its event loop, like the `DelayQueue` that holds it.
final class ResponseCache {
    static let slots = 16
    /// Larger bodies are copied per answer as before: an image of megabytes is not kept.
    static let maxBodyBytes = 16 * 1024
    /// Smaller bodies are not kept: a `Data` this short may live inline, with no storage
    /// whose identity could be compared.
    static let minBodyBytes = 64

    private struct Entry {
        let status: Int
        let http10: Bool
        let keepAlive: Bool
        let headers: HeaderFields
        let body: Data
        let bytes: ByteBuffer
        var referenced: Bool
    }

    private var entries: [Entry] = []
    private var hand = 0

    init() {
        entries.reserveCapacity(Self.slots)
    }

    /// How many answers are kept (for tests).
    var count: Int { entries.count }

    /// Whether an answer with this body may be kept.
    static func admits(_ body: Data) -> Bool {
        body.count >= minBodyBytes && body.count <= maxBodyBytes
    }

    /// The encoded answer kept for this status line, header list, body and `Connection`.
    func answer(status: Int, http10: Bool, keepAlive: Bool, headers: HeaderFields, body: Data) -> ByteBuffer? {
        for index in entries.indices {
            let entry = entries[index]
            guard entry.status == status, entry.keepAlive == keepAlive, entry.http10 == http10,
                  entry.body.count == body.count, entry.headers.sharesStorage(with: headers),
                  Self.sameStorage(entry.body, body) else { continue }
            if !entry.referenced { entries[index].referenced = true }
            return entry.bytes
        }
        return nil
    }

    /// Keeps `bytes`, the whole answer just encoded for these parts.
    func keep(_ bytes: ByteBuffer, status: Int, http10: Bool, keepAlive: Bool, headers: HeaderFields, body: Data) {
        let entry = Entry(status: status, http10: http10, keepAlive: keepAlive, headers: headers, body: body,
                          bytes: bytes, referenced: false)
        guard entries.count == Self.slots else {
            entries.append(entry)
            return
        }
        while entries[hand].referenced {
            entries[hand].referenced = false
            hand = (hand + 1) % Self.slots
        }
        entries[hand] = entry
        hand = (hand + 1) % Self.slots
    }

    /// Whether both bodies are the same bytes in memory (both at least `minBodyBytes`, so
    /// each has storage of its own, retained by the caller and the entry).
    private static func sameStorage(_ kept: Data, _ body: Data) -> Bool {
        kept.withUnsafeBytes { mine in
            body.withUnsafeBytes { theirs in mine.baseAddress == theirs.baseAddress }
        }
    }
}
