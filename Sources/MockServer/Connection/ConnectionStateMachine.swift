import Foundation
import NIOCore
import NIOHTTP1

/// The life of one HTTP/1.1 connection, or of one HTTP/2 stream, as a value: each event
/// the handler sees (a request part, a read asked for, a response ended, a deadline, a
/// stop, the close) is a mutating call that returns what to do. The handler only carries
/// the actions out, so every transition can be tested without a channel.
///
/// Requests are answered one at a time and in order. Parts that arrive while an answer is
/// under way wait in a queue (pipelining), and reading pauses until the queue drains, so a
/// client cannot make the queue grow without bound. A request body past `maxBodySize` is
/// read and dropped, then refused with 413.
///
/// An HTTP/2 stream (`multiplexed`) carries one request, and its answer never closes the
/// connection; a stopping server lets it read the rest of its request.
struct ConnectionStateMachine {
    /// A request being read, or read and waiting to be answered.
    struct Request {
        var head: HTTPRequestHead
        var body: ByteBuffer
        let receivedAt: Date
        /// Body bytes received in all, once past the size limit (the body is then dropped).
        var oversize: Int?
    }

    enum State {
        /// Between requests.
        case idle
        /// A request's head is in; its body is arriving.
        case receiving(Request)
        /// The whole request is in, but a network profile's uplink has not carried it yet.
        case uplink(Request)
        /// An answer is under way: delayed, being written, paced.
        case responding
        /// A `hang` fault: nothing more is ever written.
        case hanging
        /// An endless answer (an event stream): it goes on until the client leaves.
        case streaming
        /// An answer is out, but the write buffer is over its high water mark: the next
        /// request waits until the channel is writable.
        case blocked
        /// The last answer is written; the connection closes once it is out.
        case closing
        /// The channel closed.
        case closed
    }

    private(set) var state = State.idle
    /// Whether this is an HTTP/2 stream (one request; the connection goes on after it).
    let multiplexed: Bool
    /// The largest request body answered; a larger one gets 413.
    let maxBodySize: Int
    /// Request parts waiting for the answer under way.
    private var queue = PartQueue()
    /// A read was asked for while reads were held: it is done when they resume.
    private var readWithheld = false
    /// A stopping server asked the connection to finish.
    private(set) var quiescing = false
    /// Reads are held while a network profile's uplink catches up with the body.
    private(set) var uplinkHeld = false

    init(multiplexed: Bool, maxBodySize: Int) {
        self.multiplexed = multiplexed
        self.maxBodySize = maxBodySize
    }

    /// Whether a new request must wait for the current answer.
    var isBusy: Bool {
        switch state {
        case .idle, .receiving: return false
        case .uplink, .responding, .hanging, .streaming, .blocked, .closing, .closed: return true
        }
    }

    /// Whether bytes the decoder could not finish at a close are the head of a request of
    /// their own: not while a request's body is arriving (the close journals that request,
    /// cut off), nor once the connection refused or chose to close (it reads no more).
    var cutBytesStartANewRequest: Bool {
        // A queued request whose end has not arrived owns the bytes, as the one being read does.
        if let last = queue.last, !Self.isEnd(last) { return false }
        switch state {
        case .idle, .responding, .hanging, .streaming, .blocked: return true
        case .receiving, .uplink, .closing, .closed: return false
        }
    }

    private static func isEnd(_ part: HTTPServerRequestPart) -> Bool {
        if case .end = part { return true }
        return false
    }

    /// A stopping server's HTTP/1.1 connection reads and answers no further requests.
    private var readsStopped: Bool { quiescing && !multiplexed }

    /// Whether the answer being written may leave the connection open when its request
    /// `asked` to keep it (`HTTPRequestHead.isKeepAlive`): not once a stopping server asked
    /// it to finish (an HTTP/2 stream always may: the connection decides). It takes the
    /// head's answer rather than the head, so that the handler reads two fields of its
    /// machine in place instead of copying the machine around a call into NIO.
    func keepsAlive(asked: Bool) -> Bool {
        multiplexed || (asked && !quiescing)
    }

    // MARK: Reading

    /// The channel asks to read more: allowed unless parts wait in the queue, the uplink
    /// holds the body back, or a stopping server reads no more.
    mutating func readRequested() -> ReadAction {
        if queue.isEmpty && !readsStopped && !uplinkHeld, !isClosedOrClosing {
            return .read
        }
        readWithheld = true
        return .withhold
    }

    private var isClosedOrClosing: Bool {
        switch state {
        case .closing, .closed: return true
        default: return false
        }
    }

    /// After the queue drained or a hold ended: the read withheld meanwhile, if any.
    mutating func resumeReading() -> ReadAction? {
        guard readWithheld, queue.isEmpty, !readsStopped, !uplinkHeld, !isClosedOrClosing else { return nil }
        readWithheld = false
        return .read
    }

    // MARK: Request parts

    /// A request head arrived; `declaredLength` is its `Content-Length` (0 without one).
    /// `fromQueue`: the part comes from `nextQueued()`, so parts behind it in the queue do
    /// not hold it back.
    mutating func receivedHead(_ head: HTTPRequestHead, declaredLength: Int, at now: Date, fromQueue: Bool = false) -> HeadAction {
        guard !isBusy, fromQueue || queue.isEmpty else {
            queue.append(.head(head))
            return .queued
        }
        return begin(head, declaredLength: declaredLength, at: now)
    }

    private mutating func begin(_ head: HTTPRequestHead, declaredLength: Int, at now: Date) -> HeadAction {
        if declaredLength > maxBodySize {
            state = .receiving(Request(head: head, body: ByteBuffer(), receivedAt: now, oversize: 0))
        } else {
            state = .receiving(Request(head: head, body: ByteBufferAllocator().buffer(capacity: max(0, declaredLength)), receivedAt: now))
        }
        return .began
    }

    /// A part of a request body arrived.
    mutating func receivedBody(_ chunk: inout ByteBuffer, fromQueue: Bool = false) -> BodyAction {
        guard fromQueue || queue.isEmpty else {
            queue.append(.body(chunk))
            return .queued
        }
        // Taken out of `state`, and the taken value dropped before the body grows: a body
        // bound from an enum shares its storage with the enum's, so while the enum lives
        // each chunk written would copy the whole body received so far.
        var taken = State.idle
        swap(&taken, &state)
        switch taken {
        case .receiving(var request):
            taken = .idle
            if let oversize = request.oversize {
                request.oversize = oversize + chunk.readableBytes
                state = .receiving(request)
                return .dropped
            }
            let bytes = chunk.readableBytes
            if request.body.readableBytes + bytes > maxBodySize {
                request.oversize = request.body.readableBytes + bytes
                request.body = ByteBuffer()
                state = .receiving(request)
                return .dropped
            }
            request.body.writeBuffer(&chunk)
            state = .receiving(request)
            return .stored(bytes: bytes)
        case .idle:
            state = taken
            return .ignored
        case .uplink, .responding, .hanging, .streaming, .blocked, .closing, .closed:
            state = taken
            queue.append(.body(chunk))
            return .queued
        }
    }

    /// The request's end arrived. `uplinkPending`: a network profile's uplink has not
    /// carried the body yet.
    mutating func receivedEnd(uplinkPending: Bool, fromQueue: Bool = false) -> EndAction {
        guard fromQueue || queue.isEmpty else {
            queue.append(.end(nil))
            return .queued
        }
        // The request is taken out of `state` rather than copied out of it.
        var taken = State.responding
        swap(&taken, &state)
        switch consume taken {
        case .receiving(let request):
            if request.oversize != nil { return .refuseTooLarge(request) }
            if uplinkPending {
                state = .uplink(request)
                return .awaitUplink
            }
            return .answer(request)
        case .idle:
            state = .idle
            return .ignored
        case let other:
            state = other
            queue.append(.end(nil))
            return .queued
        }
    }

    /// The uplink has carried the body of the request held in `.uplink`.
    mutating func uplinkCarried() -> EndAction {
        guard case .uplink(let request) = state else { return .ignored }
        state = .responding
        return .answer(request)
    }

    /// The uplink holds reads while it catches up with the body (`held`), or releases them.
    /// Returns the read to do when released.
    mutating func holdUplink(_ held: Bool) -> ReadAction? {
        uplinkHeld = held
        return held ? nil : resumeReading()
    }

    /// The next queued part, when the connection can take it (call in a loop after an
    /// answer ended; each part goes through `receivedHead`/`receivedBody`/`receivedEnd`).
    mutating func nextQueued() -> HTTPServerRequestPart? {
        guard !isBusy else { return nil }
        return queue.popFirst()
    }

    /// Moves the queue's next part out so it can be fed back as a fresh event.
    var hasQueued: Bool { !queue.isEmpty }

    // MARK: Answers

    /// A `hang` fault: nothing more is written.
    mutating func hang() { if !isClosedOrClosing { state = .hanging } }

    /// An endless answer began.
    mutating func startStreaming() { if !isClosedOrClosing { state = .streaming } }

    /// The last part of an answer was written. `keepAlive`: the connection stays open;
    /// `writable`: the channel takes more bytes now.
    mutating func responseEnded(keepAlive: Bool, writable: Bool) -> AfterResponse {
        guard !isClosedOrClosing else { return .none }
        guard keepAlive else {
            state = .closing
            return .closeAfterWrites
        }
        guard writable else {
            state = .blocked
            return .none
        }
        return resume()
    }

    /// The channel's writability changed: a blocked connection goes on once it is writable.
    mutating func writabilityChanged(writable: Bool) -> AfterResponse {
        guard writable, case .blocked = state else { return .none }
        return resume()
    }

    private mutating func resume() -> AfterResponse {
        if readsStopped && queue.isEmpty {
            state = .closing
            return .closeAfterWrites
        }
        state = .idle
        return .ready
    }

    /// The answer under way ends the connection (a fault that closes it). Queued requests
    /// stay queued: the close reports them (`closed()`).
    mutating func closeAfterAnswer() {
        if case .closed = state { return }
        state = .closing
    }

    // MARK: Refusals, deadlines, stop, close

    /// The transport refuses what is being read: malformed, too large, too slow.
    mutating func refuse(_ refusal: Refusal) -> RefusalAction {
        var taken = State.responding
        swap(&taken, &state)
        switch consume taken {
        case .idle:
            queue.removeAll()
            return .refuse(nil)
        case .receiving(let request), .uplink(let request):
            queue.removeAll()
            return .refuse(request)
        case .closed:
            state = .closed
            return .close
        case .responding, .hanging, .streaming, .blocked, .closing:
            // Queued requests stay: the close reports them (`closed()`).
            state = .closing
            return .close
        }
    }

    /// The idle deadline passed: an idle connection with nothing queued closes.
    mutating func idleTimedOut() -> Bool {
        guard case .idle = state, queue.isEmpty else { return false }
        state = .closing
        return true
    }

    /// A stopping server asks the connection to finish: the answer under way goes out with
    /// `Connection: close`, and nothing more is read. An HTTP/2 stream finishes its request
    /// (the connection's GOAWAY named it as taken).
    mutating func quiesce() -> QuiesceAction {
        quiescing = true
        guard !multiplexed else { return .none }
        switch state {
        case .idle where queue.isEmpty, .blocked:
            state = .closing
            return .closeAfterWrites
        default:
            return .none
        }
    }

    /// The channel closed: the requests it received and never answered, in order.
    mutating func closed() -> [Abandoned] {
        var abandoned: [Abandoned] = []
        switch state {
        case .receiving(let request):
            abandoned.append(Abandoned(head: request.head, receivedAt: request.receivedAt, reason: .bodyCutOff))
        case .uplink(let request):
            abandoned.append(Abandoned(head: request.head, receivedAt: request.receivedAt, reason: .uplinkCutOff))
        default:
            break
        }
        state = .closed
        var pending: HTTPRequestHead?
        while let part = queue.popFirst() {
            switch part {
            case .head(let head): pending = head
            case .body: break
            case .end:
                if let head = pending { abandoned.append(Abandoned(head: head, receivedAt: nil, reason: .queued)) }
                pending = nil
            }
        }
        if let head = pending { abandoned.append(Abandoned(head: head, receivedAt: nil, reason: .bodyCutOff)) }
        return abandoned
    }
}
