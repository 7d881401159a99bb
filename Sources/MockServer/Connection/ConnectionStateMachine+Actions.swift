import Foundation
import NIOHTTP1

/// What the connection's state machine asks of its handler: one action type per event.
extension ConnectionStateMachine {
    enum ReadAction: Equatable {
        case read
        /// Held: the read is done when reads resume (`resumeReading`).
        case withhold
    }

    enum HeadAction: Equatable {
        /// Queued behind the answer under way.
        case queued
        /// A request begun: its body is read next.
        case began
    }

    enum BodyAction: Equatable {
        case queued
        /// Kept: `bytes` more of the body (the uplink paces them).
        case stored(bytes: Int)
        /// Past the limit: dropped.
        case dropped
        /// No request is being read (a part the decoder sent after a refusal): ignored.
        case ignored
    }

    enum EndAction {
        case queued
        /// Answer this request.
        case answer(Request)
        /// Its body passed the limit: refuse it with 413 and close.
        case refuseTooLarge(Request)
        /// Complete before the uplink could have carried it: `uplinkCarried()` answers it.
        case awaitUplink
        case ignored
    }

    enum AfterResponse: Equatable {
        /// Nothing to do now (the channel is not writable yet, or it closed).
        case none
        /// Idle again: drain the queue (`nextQueued`), then `resumeReading`.
        case ready
        /// Nothing more will be answered: close once the writes are out.
        case closeAfterWrites
    }

    /// Why the transport refuses a request before the engine sees it.
    enum Refusal: Equatable {
        case malformed(String)
        case headTooLarge(limit: Int)
        case headTimedOut
        case bodyStalled
    }

    enum RefusalAction {
        /// Answer the refusal (the request in progress, if any, is what it refuses), then
        /// close: the machine is `responding`, and the answer's end (`keepAlive: false`) closes.
        case refuse(Request?)
        /// An answer is under way: there is nothing to answer on, so just close.
        case close
    }

    enum QuiesceAction: Equatable {
        case none
        /// Nothing is under way: close once the writes are out.
        case closeAfterWrites
    }

    /// A request the server read and never answered, for the journal.
    struct Abandoned {
        let head: HTTPRequestHead
        /// When it arrived, when known (a queued request's time is the close's).
        let receivedAt: Date?
        let reason: Reason

        enum Reason: Equatable {
            /// Cut off mid-body.
            case bodyCutOff
            /// Complete, but the uplink was still carrying its body.
            case uplinkCutOff
            /// Complete and queued behind an answer (pipelining).
            case queued
        }
    }
}
