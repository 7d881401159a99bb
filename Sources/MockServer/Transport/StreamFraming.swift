import MockCore
import NIOCore
import NIOHTTP1

/// How the handler of one stream of a multiplexed connection (an HTTP/2 stream) reads its
/// request, and (as its `ResponseWriter`) writes its answer: the connection's framing,
/// shared by its streams' handlers. `MockServerTLS` provides the one conformance (HTTP/2 by
/// ALPN); the core names no frame type, so scenarios, the journal, the admin API, delays,
/// pacing and network profiles stay the same code on both protocols.
///
/// Used on the connection's event loop only, like the handlers that hold it.
package protocol StreamFraming: ResponseWriter {
    /// The request parts of one inbound message of the stream, in order: a part or none,
    /// and whether the request ends with it. `state` is the stream's own (its handler's).
    func decode(_ data: NIOAny, into state: inout StreamReadState, context: ChannelHandlerContext) -> (part: HTTPServerRequestPart?, ends: Bool)

    /// A stream's handler was added (`context` is the stream's).
    func streamOpened(context: ChannelHandlerContext)
    /// A handler `streamOpened` reported was removed: its stream closed.
    func streamClosed()
}

/// What one stream's handler knows of its request's framing.
package struct StreamReadState {
    /// The request's head has been read.
    package var headRead = false
    /// The message that opened the stream also ended it: the request has no body.
    package var headEndedStream = false

    package init() {}
}

/// A whole answer on a stream, encoded: its head and its body's bytes (`ResponseCache`).
package struct StreamAnswer {
    package let head: NIOAny
    package let body: ByteBuffer

    package init(head: NIOAny, body: ByteBuffer) {
        self.head = head
        self.body = body
    }
}
