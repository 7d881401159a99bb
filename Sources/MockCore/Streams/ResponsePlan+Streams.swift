import Foundation

extension ResponsePlan {
    /// Server-sent events to write after the head, each when it is due
    /// (``EventStreamPlayer``), instead of ``body``. Times are already scaled.
    public var eventStream: EventStream? {
        get { streaming?.value.eventStream }
        set { changeStreaming { $0.eventStream = newValue } }
    }

    /// A WebSocket to play once the upgrade is accepted (``WebSocketConversation``);
    /// the plan's status is then 101. Times are already scaled.
    public var webSocket: WebSocketScript? {
        get { streaming?.value.webSocket }
        set { changeStreaming { $0.webSocket = newValue } }
    }

    /// What breaks the event stream or the WebSocket once it started. Times are already
    /// scaled.
    public var streamFault: StreamFault? {
        get { streaming?.value.fault }
        set { changeStreaming { $0.fault = newValue } }
    }

    /// Whether the plan streams (an event stream or a WebSocket) rather than answering
    /// with its body alone.
    public var isStream: Bool { streaming.map { $0.value.eventStream != nil || $0.value.webSocket != nil } ?? false }

    /// Sets the WebSocket with what its templates read besides the upgrade request: the
    /// rule's path parameters and a generator of their own.
    mutating func setWebSocket(_ script: WebSocketScript, pathParameters: [String: String], generator: SeededRandom) {
        changeStreaming {
            $0.webSocket = script
            $0.pathParameters = pathParameters
            $0.generator = generator
        }
    }

    private mutating func changeStreaming(_ change: (inout Streaming) -> Void) {
        var value = streaming?.value ?? Streaming()
        change(&value)
        streaming = value.isEmpty ? nil : SharedStreaming(value)
    }
}

/// What a plan streams (see ``ResponsePlan/streaming``).
struct Streaming: Sendable {
    var eventStream: EventStream?
    var webSocket: WebSocketScript?
    var fault: StreamFault?
    /// What a WebSocket's templates read besides the upgrade request.
    var pathParameters: [String: String] = [:]
    var generator = SeededRandom(seed: 0)

    var isEmpty: Bool { eventStream == nil && webSocket == nil && fault == nil }
}

/// A plan's ``Streaming``, held by reference: plans are copied between the engine's steps
/// on every request, and a stream's events and script inline would be copied with them.
final class SharedStreaming: Sendable {
    let value: Streaming
    init(_ value: Streaming) { self.value = value }
}
