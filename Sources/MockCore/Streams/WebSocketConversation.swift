import Foundation

/// The server's side of one WebSocket, as a state machine: events in (the connection
/// opened, a message or a control frame arrived, a timer fired, the peer closed), actions
/// out (send a frame, schedule a timer, close, reset). It plays a ``WebSocketScript``
/// with its ``StreamFault``, knows nothing of sockets or frames' bytes, and has no clock:
/// each event comes with the time it happened, in seconds on the caller's clock, and a
/// delay is a timer the caller fires by calling ``handle(_:at:)`` with `.timerFired`.
///
/// It keeps the protocol's rules (RFC 6455): a ping is answered with a pong of its
/// payload; a peer's close is answered with a close echoing its code, then the server
/// closes the connection; after the server sent a close it sends no more, and closes the
/// connection when the peer's close comes or after ``closeHandshakeTimeout``.
///
/// Faults: the script's data frames (text and binary; not pings and pongs) are counted,
/// and a counted fault strikes once `after` of them were sent (at the opening for 0):
/// a stall holds every frame (pongs and closes too) until it ends, or for ever; a drop
/// closes cleanly (close 1000) or resets; an early end closes the connection with no
/// close frame; a close fault sends its close frame; `malformed` sends a malformed frame
/// (``malformedFrame``) in place of the next data frame. A slow drip adds its interval to
/// every message's delay (a push's messages too); a burst sends lists without their
/// delays and a push that counts its times all at once. Closes keep their times.
public struct WebSocketConversation: Sendable {
    /// A frame no client may accept: FIN set and the reserved opcode 0x3, with no payload
    /// (RFC 6455 §5.2). A client fails the connection (code 1002).
    public static let malformedFrame: [UInt8] = [0x83, 0x00]
    /// How long the server waits for the peer's close after sending its own, seconds.
    public static let closeHandshakeTimeout: TimeInterval = 5
    /// The most timers and held frames at once; past it a flood of messages is answered
    /// with a close (1013, try again later) rather than more memory.
    public static let maxPending = 1024

    /// The script played.
    public let script: WebSocketScript
    /// The script's replies, as each message reads them: in place, without copying a
    /// reply's fields for every message.
    private let replies: [Reply]
    /// The fault that breaks the conversation, if any.
    public let fault: StreamFault?
    /// Where the conversation is; it starts `connecting`.
    public private(set) var state: State = .connecting
    /// Data frames sent (text, binary, and a malformed frame in place of one).
    public private(set) var sentDataFrames = 0
    /// Frames a stall held past ``maxPending`` and dropped.
    public private(set) var droppedFrames = 0

    private let timeScale: Double
    /// What templates read (the upgrade request, the rule's path parameters) and draw
    /// from, made once: each reply sets the message it answers.
    private var templateContext: ResponseTemplate.Context
    private var nextTimer = 0
    private var pending: [Int: Work] = [:]
    private var faultDone = false
    private var malformNext = false
    /// While stalled: when it ends (`.infinity`: never), and what waits for it.
    private var stalledUntil: TimeInterval?
    private var held: [Held] = []
    /// The time of the event being handled.
    private var now: TimeInterval = 0

    /// A reply of the script.
    private final class Reply: Sendable {
        let match: MessagePattern
        let messages: ArraySlice<WebSocketMessage>
        let close: WebSocketClose?

        init(_ reply: WebSocketReply) {
            match = reply.match
            messages = reply.messages[...]
            close = reply.close
        }
    }

    /// What a timer does when it fires.
    private enum Work: Sendable {
        /// A list of messages from its first, whose delay is spent; then the close.
        case messages(ArraySlice<WebSocketMessage>, close: WebSocketClose?, message: Message?)
        /// Push series `index` fires; `remaining` times more after this one (nil: without end).
        case push(index: Int, remaining: Int?)
        case close(WebSocketClose)
        case stallEnd
        case closeTimeout
    }

    /// What a stall holds.
    private enum Held: Sendable {
        case frame(Frame)
        case close(WebSocketClose)
        case answerClose(code: UInt16?)
    }

    /// - Parameters:
    ///   - script: the conversation, as a plan carries it.
    ///   - fault: what breaks it, if anything.
    ///   - timeScale: every delay (the script's and the fault's) is multiplied by it; 1
    ///     for a plan's, which the engine scaled already.
    ///   - request: the upgrade request, which templates read (`{{request.query.room}}`).
    ///   - pathParameters: the rule's path parameters, for `{{request.path.NAME}}`.
    ///   - generator: where templates draw random values.
    public init(script: WebSocketScript, fault: StreamFault? = nil, timeScale: Double = 1, request: MockRequest,
                pathParameters: [String: String] = [:], generator: SeededRandom = SeededRandom(seed: 0)) {
        self.script = script
        replies = script.onMessage.map(Reply.init)
        self.fault = fault
        self.timeScale = timeScale
        templateContext = ResponseTemplate.Context(request: request, pathParameters: pathParameters, generator: generator, message: Message?.none)
    }

    /// The conversation of `plan`'s WebSocket (nil when it has none), for its upgrade
    /// `request`. A plan's times are scaled already.
    public init?(plan: ResponsePlan, request: MockRequest) {
        guard let script = plan.webSocket else { return nil }
        self.init(script: script, fault: plan.streamFault, request: request,
                  pathParameters: plan.streaming?.value.pathParameters ?? [:], generator: plan.streaming?.value.generator ?? SeededRandom(seed: 0))
    }

    /// Timers not yet fired.
    public var pendingTimers: Int { pending.count }

    /// What to do about `event`, which happened at `now`.
    public mutating func handle(_ event: Event, at time: TimeInterval) -> [Action] {
        var actions: [Action] = []
        handle(event, at: time, into: &actions)
        return actions
    }

    /// What to do about `event`, which happened at `now`, appended to `actions`: a
    /// transport that keeps one array and empties it between events makes none per event.
    public mutating func handle(_ event: Event, at time: TimeInterval, into actions: inout [Action]) {
        now = time
        switch event {
        case .opened:
            guard state == .connecting else { return }
            state = .open
            if fault?.after == 0 { strike(&actions) }
            guard state == .open else { return }
            run(script.onConnect[...], close: nil, message: nil, &actions)
            if let close = script.close, state == .open {
                let wait = max(0, close.delay) * timeScale
                if wait > 0 { schedule(.close(close), at: now + wait, &actions) } else { closeOrHold(close, &actions) }
            }
            guard state == .open else { return }
            for (index, push) in script.pushes.enumerated() where push.times != 0 && !push.messages.isEmpty {
                schedule(.push(index: index, remaining: push.times.map { $0 - 1 }), at: now + push.start * timeScale + interval(push), &actions)
            }
        case .text(let text):
            answer(Message(text: text), &actions)
        case .binary(let bytes):
            answer(Message(kind: .binary, bytes: bytes), &actions)
        case .ping(let payload):
            guard state == .open else { return }
            send(.pong(payload), &actions)
        case .pong:
            break
        case .timerFired(let timer):
            guard let work = pending.removeValue(forKey: timer.id) else { return }
            fire(work, &actions)
        case .peerClosed(let code, _):
            switch state {
            case .open:
                if stalledUntil != nil {
                    hold(.answerClose(code: code))
                } else {
                    answerClose(code, &actions)
                }
            case .closing:
                finish(&actions, .closeConnection)
            case .connecting, .closed:
                break
            }
        case .connectionLost:
            state = .closed
            pending.removeAll()
            held.removeAll()
        }
    }

    // MARK: Playing the script

    /// A push's interval (a slow drip reaches its messages through their delays).
    private func interval(_ push: WebSocketPush) -> TimeInterval {
        max(0, push.interval) * timeScale
    }

    /// A message's delay, with the fault's (a close keeps its own).
    private func delay(_ seconds: TimeInterval) -> TimeInterval {
        if case .burst? = fault { return 0 }
        var scaled = max(0, seconds) * timeScale
        if case .slowDrip(let extra)? = fault { scaled += max(0, extra) * timeScale }
        return scaled
    }

    /// A client message: the first reply whose pattern matches starts its list.
    private mutating func answer(_ message: Message, _ actions: inout [Action]) {
        guard state == .open else { return }
        for reply in replies where reply.match.matches(message) {
            run(reply.messages, close: reply.close, message: message, &actions)
            return
        }
    }

    /// Sends `messages` from the first, each after its delay, then `close`.
    private mutating func run(_ messages: ArraySlice<WebSocketMessage>, close: WebSocketClose?, message: Message?,
                              _ actions: inout [Action], firstDelaySpent: Bool = false) {
        var rest = messages
        var spent = firstDelaySpent
        while let first = rest.first, state == .open {
            let wait = spent ? 0 : delay(first.delay)
            if wait > 0 {
                schedule(.messages(rest, close: close, message: message), at: now + wait, &actions)
                return
            }
            spent = false
            send(render(first.payload, message: message), &actions)
            rest = rest.dropFirst()
        }
        guard state == .open, let close else { return }
        let wait = max(0, close.delay) * timeScale
        if wait > 0 { schedule(.close(close), at: now + wait, &actions) } else { closeOrHold(close, &actions) }
    }

    private mutating func fire(_ work: Work, _ actions: inout [Action]) {
        switch work {
        case .messages(let rest, let close, let message):
            run(rest, close: close, message: message, &actions, firstDelaySpent: true)
        case .push(let index, let remaining):
            guard state == .open else { return }
            let push = script.pushes[index]
            if case .burst? = fault, let remaining {
                for _ in 0...remaining { run(push.messages[...], close: nil, message: nil, &actions) }
                return
            }
            run(push.messages[...], close: nil, message: nil, &actions)
            guard remaining.map({ $0 > 0 }) ?? true, state == .open, stalledUntil != .infinity else { return }
            schedule(.push(index: index, remaining: remaining.map { $0 - 1 }), at: now + interval(push), &actions)
        case .close(let close):
            guard state == .open else { return }
            closeOrHold(close, &actions)
        case .stallEnd:
            stalledUntil = nil
            let waiting = held
            held = []
            for item in waiting where state == .open {
                switch item {
                case .frame(let frame): send(frame, &actions)
                case .close(let close): closeOrHold(close, &actions)
                case .answerClose(let code): answerClose(code, &actions)
                }
            }
        case .closeTimeout:
            guard state == .closing else { return }
            finish(&actions, .closeConnection)
        }
    }

    private mutating func render(_ payload: WebSocketMessage.Payload, message: Message?) -> Frame {
        switch payload {
        case .text(let text): return .text(text)
        case .json(let value): return .text(String(decoding: JSONCoding.encode(value), as: UTF8.self))
        case .binary(let bytes): return .binary(bytes)
        case .ping(let bytes): return .ping(bytes)
        case .pong(let bytes): return .pong(bytes)
        case .template(let template, let json):
            templateContext.message = message
            defer { templateContext.message = nil }
            return .text(template.render(&templateContext, escaping: json ? .json : .none))
        }
    }

    // MARK: Sending, faults and closing

    /// Sends `frame` now, unless a stall holds it or a fault strikes first.
    private mutating func send(_ frame: Frame, _ actions: inout [Action]) {
        guard state == .open else { return }
        guard stalledUntil == nil else {
            hold(.frame(frame))
            return
        }
        guard frame.isData else {
            actions.append(.send(frame))
            return
        }
        if malformNext {
            malformNext = false
            actions.append(.sendMalformedFrame)
        } else {
            actions.append(.send(frame))
        }
        sentDataFrames += 1
        if let after = fault?.after, sentDataFrames == after { strike(&actions) }
    }

    /// The counted fault, now.
    private mutating func strike(_ actions: inout [Action]) {
        guard let fault, !faultDone else { return }
        faultDone = true
        switch fault {
        case .stall(_, let duration):
            guard let duration else {
                stalledUntil = .infinity
                actions.append(.stall(until: nil))
                pending.removeAll()
                return
            }
            let until = now + max(0, duration) * timeScale
            stalledUntil = until
            actions.append(.stall(until: until))
            schedule(.stallEnd, at: until, &actions)
        case .drop(_, let clean):
            if clean { sendClose(code: WebSocketCloseCode.normal, reason: "", &actions) } else { finish(&actions, .reset) }
        case .endEarly:
            finish(&actions, .closeConnection)
        case .close(_, let code, let reason):
            sendClose(code: code, reason: reason, &actions)
        case .closeWithoutCode:
            sendClose(code: nil, reason: "", &actions)
        case .malformed:
            malformNext = true
        case .slowDrip, .burst:
            break
        }
    }

    private mutating func closeOrHold(_ close: WebSocketClose, _ actions: inout [Action]) {
        guard stalledUntil == nil else {
            hold(.close(close))
            return
        }
        sendClose(code: close.code, reason: close.reason, &actions)
    }

    /// The server's close frame: then it waits for the peer's, at most ``closeHandshakeTimeout``.
    private mutating func sendClose(code: UInt16?, reason: String, _ actions: inout [Action]) {
        guard state == .open else { return }
        actions.append(code.map { .close(code: $0, reason: reason) } ?? .closeWithoutCode)
        state = .closing
        pending.removeAll()
        held.removeAll()
        schedule(.closeTimeout, at: now + Self.closeHandshakeTimeout, &actions)
    }

    /// The answer to the peer's close: a close echoing its code (none if it gave none, 1000
    /// for one that may not be sent back), then the connection closes.
    private mutating func answerClose(_ code: UInt16?, _ actions: inout [Action]) {
        guard state == .open else { return }
        if let code {
            actions.append(.close(code: WebSocketCloseCode.isSendable(Int(code)) ? code : WebSocketCloseCode.normal, reason: ""))
        } else {
            actions.append(.closeWithoutCode)
        }
        finish(&actions, .closeConnection)
    }

    private mutating func finish(_ actions: inout [Action], _ last: Action) {
        actions.append(last)
        state = .closed
        pending.removeAll()
        held.removeAll()
    }

    private mutating func hold(_ item: Held) {
        guard stalledUntil != .infinity else { return }
        guard held.count < Self.maxPending else {
            droppedFrames += 1
            return
        }
        held.append(item)
    }

    private mutating func schedule(_ work: Work, at time: TimeInterval, _ actions: inout [Action]) {
        switch work {
        case .messages, .push, .close:
            // Stalled for ever: nothing scheduled would ever be sent.
            guard stalledUntil != .infinity else { return }
            guard pending.count < Self.maxPending else {
                // A flood of messages waiting for answers: the server is overloaded.
                sendClose(code: WebSocketCloseCode.tryAgainLater, reason: "too many messages waiting for an answer", &actions)
                return
            }
        case .stallEnd, .closeTimeout:
            break
        }
        nextTimer += 1
        pending[nextTimer] = work
        actions.append(.schedule(Timer(id: nextTimer), at: time))
    }
}
