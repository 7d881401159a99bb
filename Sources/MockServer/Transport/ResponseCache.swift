import Foundation
import MockCore
import NIOCore

/// Whole answers of one event loop, encoded once and written again as they are while a
/// plan brings the same header list and the same body bytes: HTTP/1.1 bytes (head and
/// body), or an HTTP/2 stream's HEADERS frame and DATA bytes (`StreamAnswer`).
///
/// Most answers repeat: a fixture's body is one `Data` (a rendered template is kept per
/// base URL, a page in the page cache, an image in its asset) and its headers one shared
/// list. A hit costs two identity checks and one write, where a miss encodes the head
/// (over HTTP/2, the field block) and copies the body into a buffer; that buffer is built
/// anyway, and keeping it only retains it.
///
/// Identity, not equality: a kept entry retains the plan's header list and body, so while
/// it is kept no other list or body can take over their storage, and the same storage
/// means the same bytes (both are values: a change would have copied them). That holds
/// for a body that owns its bytes, as `ResponsePlan.body` requires: a `Data` made with
/// `bytesNoCopy` and no deallocator over a buffer that is later rewritten would not.
///
/// Bounded: `slots` entries, each holding a body of at most `maxBodyBytes` twice (the
/// plan's `Data` and its encoded copy) with its header list, so about 512 KiB per loop
/// (a body that is a slice of a larger `Data` keeps that `Data` alive, as its plan did).
/// Entries are replaced by the CLOCK rule (an entry hit since the hand last passed it
/// gets a second chance), so a stream of answers that never repeat (a transform, a created
/// product) cannot push out the ones that do. Used only on its event loop, like the
/// `DelayQueue` that holds it.
package final class ResponseCache {
    static let slots = 16
    /// Larger bodies are copied into each answer: an image of megabytes is not kept.
    static let maxBodyBytes = 16 * 1024
    /// Smaller bodies are not kept: a `Data` this short may live inline, with no storage
    /// whose identity could be compared.
    static let minBodyBytes = 64

    /// How the answer goes on the wire, which its encoding depends on.
    enum Form: Equatable {
        case http1(http10: Bool, keepAlive: Bool)
        case http2
    }

    /// An HTTP/2 answer: the HEADERS frame and the DATA frame's bytes.
    package typealias Frames = StreamAnswer

    private struct Entry {
        let status: Int
        let form: Form
        let headers: HeaderFields
        let body: Data
        /// HTTP/1.1: the whole answer. HTTP/2: the DATA frame's bytes.
        let bytes: ByteBuffer
        /// HTTP/2 only: the HEADERS frame.
        let head: NIOAny?
        var referenced: Bool
    }

    @exclusivity(unchecked) private var entries: [Entry] = []
    @exclusivity(unchecked) private var hand = 0

    init() {
        entries.reserveCapacity(Self.slots)
    }

    /// How many answers are kept (for tests).
    var count: Int { entries.count }

    /// Whether an answer with this body may be kept.
    package static func admits(_ body: Data) -> Bool {
        body.count >= minBodyBytes && body.count <= maxBodyBytes
    }

    /// The encoded HTTP/1.1 answer kept for this status line, header list, body and `Connection`.
    func answer(status: Int, http10: Bool, keepAlive: Bool, headers: HeaderFields, body: Data) -> ByteBuffer? {
        find(status: status, form: .http1(http10: http10, keepAlive: keepAlive), headers: headers, body: body).map { entries[$0].bytes }
    }

    /// Keeps `bytes`, the whole HTTP/1.1 answer just encoded for these parts.
    func keep(_ bytes: ByteBuffer, status: Int, http10: Bool, keepAlive: Bool, headers: HeaderFields, body: Data) {
        insert(Entry(status: status, form: .http1(http10: http10, keepAlive: keepAlive), headers: headers, body: body,
                     bytes: bytes, head: nil, referenced: false))
    }

    /// The HTTP/2 frames kept for this status, header list and body (its whole length in
    /// `content-length`).
    package func frames(status: Int, headers: HeaderFields, body: Data) -> Frames? {
        guard let index = find(status: status, form: .http2, headers: headers, body: body), let head = entries[index].head else { return nil }
        return Frames(head: head, body: entries[index].bytes)
    }

    /// Keeps the HTTP/2 frames just made for these parts.
    package func keep(_ frames: Frames, status: Int, headers: HeaderFields, body: Data) {
        insert(Entry(status: status, form: .http2, headers: headers, body: body, bytes: frames.body, head: frames.head,
                     referenced: false))
    }

    private func find(status: Int, form: Form, headers: HeaderFields, body: Data) -> Int? {
        // The same body is the same bytes in memory (both at least `minBodyBytes`, so each
        // has storage of its own, retained by the caller and the entry). Read through one
        // buffer pointer: each `entries[index]` of a class's array is an exclusivity
        // check, five per entry tried.
        let count = body.count
        let found = body.withUnsafeBytes { theirs -> Int? in
            entries.withUnsafeBufferPointer { kept -> Int? in
                for index in kept.indices {
                    guard kept[index].status == status, kept[index].form == form, kept[index].body.count == count,
                          kept[index].headers.sharesStorage(with: headers),
                          kept[index].body.withUnsafeBytes({ $0.baseAddress == theirs.baseAddress }) else { continue }
                    return index
                }
                return nil
            }
        }
        if let found, !entries[found].referenced { entries[found].referenced = true }
        return found
    }

    private func insert(_ entry: Entry) {
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

}
