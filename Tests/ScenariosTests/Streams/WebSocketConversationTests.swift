import Foundation
import Testing
@testable import MockCore

/// Plays a conversation on a clock the test advances: timers the machine schedules fire
/// when the clock reaches them, in time order, and every action is kept with its time.
struct ConversationDriver {
    typealias Action = WebSocketConversation.Action
    var conversation: WebSocketConversation
    private(set) var now: TimeInterval = 0
    private(set) var log: [(at: TimeInterval, action: Action)] = []
    private var timers: [(at: TimeInterval, timer: WebSocketConversation.Timer)] = []

    init(_ script: WebSocketScript, fault: StreamFault? = nil, request: MockRequest = ConversationDriver.upgrade) {
        conversation = WebSocketConversation(script: script, fault: fault, request: request, generator: SeededRandom(seed: 1))
    }

    static let upgrade = MockRequest(method: "GET", uri: "/chat?room=blue", headers: ["Sec-WebSocket-Key": "k", "Upgrade": "websocket"])

    /// Sends `event` now and returns the actions it gave.
    @discardableResult
    mutating func send(_ event: WebSocketConversation.Event) -> [Action] {
        let actions = conversation.handle(event, at: now)
        take(actions)
        return actions
    }

    /// Moves the clock to `time`, firing every timer due by then.
    mutating func advance(to time: TimeInterval) {
        while let next = timers.enumerated().min(by: { $0.element.at < $1.element.at || ($0.element.at == $1.element.at && $0.element.timer.id < $1.element.timer.id) }),
              next.element.at <= time {
            timers.remove(at: next.offset)
            now = max(now, next.element.at)
            take(conversation.handle(.timerFired(next.element.timer), at: now))
        }
        now = max(now, time)
    }

    private mutating func take(_ actions: [Action]) {
        for action in actions {
            log.append((now, action))
            if case .schedule(let timer, let at) = action { timers.append((at, timer)) }
        }
    }

    /// The actions other than scheduling, with their times.
    var sent: [(at: TimeInterval, action: Action)] {
        log.filter { if case .schedule = $0.action { return false } else { return true } }
    }

    /// The texts sent, in order.
    var texts: [String] {
        sent.compactMap { if case .send(.text(let text)) = $0.action { return text } else { return nil } }
    }
}

@Suite struct WebSocketConversationTests {
    static func near(_ a: TimeInterval, _ b: TimeInterval) -> Bool { abs(a - b) < 1e-9 }

    static let chat = WebSocketScript(
        subprotocol: "chat",
        onConnect: [.text("welcome"), .json(["type": "hello"], delay: 0.5)],
        onMessage: [
            WebSocketReply("ping", match: MessagePattern(text: .equalTo("ping")), messages: [.text("pong")]),
            WebSocketReply("subscribe", match: MessagePattern(body: .jsonValue(at: JSONLocation(path: "$.type")!, .equalTo("subscribe"))),
                           messages: [.text("subscribed", delay: 1), .text("first update", delay: 1)]),
            WebSocketReply("bye", match: MessagePattern(text: .matches("bye.*")), messages: [.text("see you")],
                           close: WebSocketClose(code: 1000, reason: "bye", delay: 0.2)),
        ])

    @Test func nothingHappensBeforeTheConnectionOpens() {
        var driver = ConversationDriver(Self.chat)
        #expect(driver.send(.text("ping")).isEmpty)
        #expect(driver.conversation.state == .connecting)
        driver.send(.opened)
        #expect(driver.conversation.state == .open)
        #expect(driver.send(.opened).isEmpty)
    }

    @Test func theGreetingGoesOutEachMessageAfterItsDelay() {
        var driver = ConversationDriver(Self.chat)
        let first = driver.send(.opened)
        #expect(first.first == .send(.text("welcome")))
        #expect(first.count == 2)   // the greeting's second message waits on a timer
        driver.advance(to: 0.4)
        #expect(driver.texts == ["welcome"])
        driver.advance(to: 0.5)
        #expect(driver.texts == ["welcome", #"{"type":"hello"}"#])
        #expect(Self.near(driver.sent[1].at, 0.5))
    }

    @Test func aMessageIsAnsweredByTheFirstReplyThatMatches() {
        var driver = ConversationDriver(Self.chat)
        driver.send(.opened)
        driver.advance(to: 1)
        #expect(driver.send(.text("ping")) == [.send(.text("pong"))])
        #expect(driver.send(.text("PING")).isEmpty)   // no reply matches: nothing is sent
        driver.send(.text(#"{"type": "subscribe", "room": 1}"#))
        driver.advance(to: 1.9)
        #expect(driver.texts.suffix(1) == ["pong"])
        driver.advance(to: 3)
        #expect(driver.texts.suffix(2) == ["subscribed", "first update"])
        #expect(Self.near(driver.sent[driver.sent.count - 2].at, 2) && Self.near(driver.sent[driver.sent.count - 1].at, 3))
    }

    @Test func aReplysCloseComesAfterItsMessagesThenThePeersCloseEndsIt() {
        var driver = ConversationDriver(Self.chat)
        driver.send(.opened)
        driver.send(.text("bye now"))
        #expect(driver.texts.last == "see you")
        driver.advance(to: 0.19)
        #expect(driver.conversation.state == .open)
        driver.advance(to: 0.2)
        #expect(driver.sent.last?.action == .close(code: 1000, reason: "bye"))
        #expect(driver.conversation.state == .closing)
        // After its close the server sends nothing more, not even an answer.
        #expect(driver.send(.text("ping")).isEmpty)
        #expect(driver.send(.peerClosed(code: 1000, reason: "")) == [.closeConnection])
        #expect(driver.conversation.state == .closed)
    }

    @Test func aClosingServerClosesTheConnectionWhenThePeerNeverAnswers() {
        var driver = ConversationDriver(WebSocketScript(close: WebSocketClose(code: 4000, reason: "done", delay: 1)))
        driver.send(.opened)
        driver.advance(to: 1)
        #expect(driver.sent.last?.action == .close(code: 4000, reason: "done"))
        driver.advance(to: 1 + WebSocketConversation.closeHandshakeTimeout - 0.01)
        #expect(driver.conversation.state == .closing)
        driver.advance(to: 1 + WebSocketConversation.closeHandshakeTimeout)
        #expect(driver.sent.last?.action == .closeConnection)
        #expect(driver.conversation.state == .closed)
    }

    @Test func aPeersCloseIsEchoedThenTheConnectionCloses() {
        var driver = ConversationDriver(Self.chat)
        driver.send(.opened)
        #expect(driver.send(.peerClosed(code: 1001, reason: "leaving")) == [.close(code: 1001, reason: ""), .closeConnection])
        #expect(driver.conversation.state == .closed)
        driver.advance(to: 10)
        #expect(driver.texts == ["welcome"])   // the greeting's timer found the conversation over
    }

    @Test func aPeersCloseWithoutACodeIsAnsweredWithoutOne() {
        var driver = ConversationDriver(Self.chat)
        driver.send(.opened)
        #expect(driver.send(.peerClosed(code: nil, reason: "")) == [.closeWithoutCode, .closeConnection])
        var other = ConversationDriver(Self.chat)
        other.send(.opened)
        // 1005 and 1006 are reported, never sent: the echo is 1000.
        #expect(other.send(.peerClosed(code: 1006, reason: "")) == [.close(code: 1000, reason: ""), .closeConnection])
    }

    @Test func aPingIsAnsweredWithItsPayloadAndAPongIsNot() {
        var driver = ConversationDriver(WebSocketScript())
        driver.send(.opened)
        #expect(driver.send(.ping(Data("hb".utf8))) == [.send(.pong(Data("hb".utf8)))])
        #expect(driver.send(.pong(Data("x".utf8))).isEmpty)
    }

    @Test func aLostConnectionEndsEverything() {
        var driver = ConversationDriver(Self.chat)
        driver.send(.opened)
        #expect(driver.send(.connectionLost).isEmpty)
        #expect(driver.conversation.state == .closed)
        #expect(driver.conversation.pendingTimers == 0)
        #expect(driver.send(.text("ping")).isEmpty)
        #expect(driver.send(.peerClosed(code: 1000, reason: "")).isEmpty)
    }

    @Test func pushesComeEveryIntervalTheirNumberOfTimes() {
        var driver = ConversationDriver(WebSocketScript(pushes: [WebSocketPush(every: 1, times: 3, start: 0.5, messages: [.text("tick")])]))
        driver.send(.opened)
        driver.advance(to: 100)
        #expect(driver.texts == ["tick", "tick", "tick"])
        #expect(driver.sent.map(\.at).enumerated().allSatisfy { Self.near($1, [1.5, 2.5, 3.5][$0]) })
        #expect(driver.conversation.pendingTimers == 0)
    }

    @Test func aPushWithoutTimesGoesOnUntilTheEnd() {
        var driver = ConversationDriver(WebSocketScript(pushes: [WebSocketPush(every: 1, messages: [.binary(Data([1, 2]))])]))
        driver.send(.opened)
        driver.advance(to: 1000)
        #expect(driver.sent.count == 1000)
        #expect(driver.sent.allSatisfy { $0.action == .send(.binary(Data([1, 2]))) })
        #expect(driver.conversation.pendingTimers == 1)   // one timer per push, however long it runs
        driver.send(.peerClosed(code: 1000, reason: ""))
        driver.advance(to: 2000)
        #expect(driver.sent.count == 1002)
    }

    @Test func aBinaryMessageIsAnsweredByABinaryReply() {
        let script = WebSocketScript(onMessage: [
            WebSocketReply("text", match: MessagePattern(kind: .text), messages: [.text("a text")]),
            WebSocketReply("blob", match: MessagePattern(kind: .binary), messages: [.binary(Data([9, 9]))]),
        ])
        var driver = ConversationDriver(script)
        driver.send(.opened)
        #expect(driver.send(.binary(Data([0xFF, 0x00]))) == [.send(.binary(Data([9, 9])))])
        #expect(driver.send(.text("x")) == [.send(.text("a text"))])
    }

    /// Closing, the server answers nothing but the peer's close; closed, nothing at all.
    @Test func aClosingOrClosedServerAnswersNothingElse() {
        var driver = ConversationDriver(WebSocketScript(onMessage: [WebSocketReply(match: .any, messages: [.text("r")])],
                                                        close: WebSocketClose(code: 1000, reason: "")))
        #expect(driver.send(.peerClosed(code: 1000, reason: "")).isEmpty)   // not open yet
        driver.send(.opened)
        #expect(driver.conversation.state == .closing)
        #expect(driver.send(.ping(Data())).isEmpty)
        #expect(driver.send(.binary(Data([1]))).isEmpty)
        #expect(driver.send(.peerClosed(code: 1000, reason: "")) == [.closeConnection])
        for event in [WebSocketConversation.Event.opened, .text("t"), .ping(Data()), .peerClosed(code: nil, reason: ""), .connectionLost] {
            #expect(driver.send(event).isEmpty, "\(event) after the close")
        }
    }

    @Test func pingsAndPongsCanBeScripted() {
        var driver = ConversationDriver(WebSocketScript(onConnect: [WebSocketMessage(.ping(Data("are you there".utf8))), WebSocketMessage(.pong(Data()))]))
        #expect(driver.send(.opened) == [.send(.ping(Data("are you there".utf8))), .send(.pong(Data()))])
    }

    @Test func repliesAreTemplatedFromTheMessageAndTheUpgradeRequest() throws {
        let template = try ResponseTemplate(#"{"echo": "{{jsonPath message '$.text'}}", "room": "{{request.query.room}}", "raw": "{{message}}"}"#)
        var driver = ConversationDriver(WebSocketScript(onMessage: [WebSocketReply(match: .any, messages: [WebSocketMessage(.template(template, json: true))])]))
        driver.send(.opened)
        driver.send(.text(#"{"text": "hi \"there\""}"#))
        #expect(JSONValue(parsing: Data((driver.texts.first ?? "").utf8)) == [
            "echo": #"hi "there""#, "room": "blue", "raw": #"{"text": "hi \"there\""}"#,
        ])
    }

    @Test func messagesMatchByKindTextAndJSON() {
        let bytes = Data(#"{"op": "join", "user": {"id": 7}}"#.utf8)
        #expect(MessagePattern(kind: .text).matches(kind: .text, bytes))
        #expect(!MessagePattern(kind: .binary).matches(kind: .text, bytes))
        #expect(MessagePattern(text: .contains("join")).matches(kind: .binary, bytes))
        #expect(MessagePattern(body: .json(["op": "join"])).matches(kind: .text, bytes))
        #expect(MessagePattern(body: .jsonValue(at: JSONLocation(pointer: "/user/id")!, .equalTo("7"))).matches(kind: .text, bytes))
        #expect(!MessagePattern(body: .jsonValue(at: JSONLocation(pointer: "/user/id")!, .equalTo("8"))).matches(kind: .text, bytes))
        #expect(MessagePattern(text: .matches(#"\{"op".*"#), body: .jsonHasKey("user.id")).matches(kind: .text, bytes))
        #expect(!MessagePattern(text: .matches("join"), body: .jsonHasKey("user.id")).matches(kind: .text, bytes))
        #expect(MessagePattern.any.matches(kind: .binary, Data([0xFF])))
    }

    // MARK: Faults

    @Test func aStallHoldsEveryFrameUntilItEndsThenSendsThemInOrder() {
        var driver = ConversationDriver(Self.chat, fault: .stall(after: 1, duration: 10))
        driver.send(.opened)
        #expect(driver.sent.map(\.action) == [.send(.text("welcome")), .stall(until: 10)])
        driver.send(.text("ping"))
        driver.send(.ping(Data("p".utf8)))
        driver.advance(to: 9.99)
        #expect(driver.texts == ["welcome"])
        driver.advance(to: 10)
        // In the order they were due: the answers at 0, the greeting's second at 0.5.
        #expect(driver.sent.dropFirst(2).map(\.action) == [
            .send(.text("pong")), .send(.pong(Data("p".utf8))), .send(.text(#"{"type":"hello"}"#)),
        ])
        #expect(driver.sent.dropFirst(2).allSatisfy { Self.near($0.at, 10) })
    }

    @Test func aStallForEverSendsNothingMoreNotEvenACloseAnswer() {
        var driver = ConversationDriver(Self.chat, fault: .stall(after: 0, duration: nil))
        #expect(driver.send(.opened) == [.stall(until: nil)])
        driver.send(.text("ping"))
        driver.send(.ping(Data()))
        #expect(driver.send(.peerClosed(code: 1000, reason: "")).isEmpty)
        driver.advance(to: 1000)
        #expect(driver.sent.map(\.action) == [.stall(until: nil)])
        #expect(driver.conversation.pendingTimers == 0)
        driver.send(.connectionLost)
        #expect(driver.conversation.state == .closed)
    }

    @Test func aTimedStallAnswersAPeersCloseWhenItEnds() {
        var driver = ConversationDriver(WebSocketScript(), fault: .stall(after: 0, duration: 3))
        driver.send(.opened)
        #expect(driver.send(.peerClosed(code: 1000, reason: "")).isEmpty)
        driver.advance(to: 3)
        #expect(driver.sent.suffix(2).map(\.action) == [.close(code: 1000, reason: ""), .closeConnection])
    }

    @Test func aCleanDropClosesWithNormalClosure() {
        var driver = ConversationDriver(Self.chat, fault: .drop(after: 1, clean: true))
        #expect(driver.send(.opened) == [.send(.text("welcome")), .close(code: 1000, reason: ""),
                                         .schedule(WebSocketConversation.Timer(id: 1), at: WebSocketConversation.closeHandshakeTimeout)])
        driver.advance(to: 1)
        #expect(driver.texts == ["welcome"])
    }

    @Test func aDropResetsTheConnection() {
        var driver = ConversationDriver(Self.chat, fault: .drop(after: 2, clean: false))
        driver.send(.opened)
        driver.advance(to: 0.5)
        #expect(driver.sent.map(\.action) == [.send(.text("welcome")), .send(.text(#"{"type":"hello"}"#)), .reset])
        #expect(driver.conversation.state == .closed)
    }

    @Test func anEarlyEndClosesTheConnectionWithoutACloseFrame() {
        var driver = ConversationDriver(Self.chat, fault: .endEarly(after: 0))
        #expect(driver.send(.opened) == [.closeConnection])
        #expect(driver.conversation.state == .closed)
    }

    @Test func aCloseFaultSendsItsCodeAfterItsFrames() {
        var driver = ConversationDriver(Self.chat, fault: .close(after: 2, code: 1011, reason: "overloaded"))
        driver.send(.opened)
        driver.advance(to: 0.5)
        #expect(driver.sent.map(\.action).suffix(2) == [.send(.text(#"{"type":"hello"}"#)), .close(code: 1011, reason: "overloaded")])
        #expect(driver.conversation.state == .closing)
        var other = ConversationDriver(Self.chat, fault: .close(after: 0, code: 1001, reason: ""))
        #expect(other.send(.opened).first == .close(code: 1001, reason: ""))
    }

    @Test func aCloseWithoutACodeFault() {
        var driver = ConversationDriver(Self.chat, fault: .closeWithoutCode(after: 1))
        #expect(driver.send(.opened).prefix(2) == [.send(.text("welcome")), .closeWithoutCode])
    }

    @Test func aMalformedFrameTakesThePlaceOfTheNextDataFrameOnly() {
        var driver = ConversationDriver(Self.chat, fault: .malformed(after: 1))
        driver.send(.opened)
        driver.advance(to: 0.5)
        #expect(driver.sent.map(\.action) == [.send(.text("welcome")), .sendMalformedFrame])
        #expect(driver.send(.ping(Data())) == [.send(.pong(Data()))])   // control frames are not counted nor broken
        #expect(driver.send(.text("ping")) == [.send(.text("pong"))])
        #expect(driver.conversation.sentDataFrames == 3)
        #expect(WebSocketConversation.malformedFrame == [0x83, 0x00])
    }

    @Test func aSlowDripAddsItsIntervalToEveryMessagesDelay() {
        let script = WebSocketScript(onConnect: [.text("a"), .text("b", delay: 1)], pushes: [WebSocketPush(every: 10, times: 1, messages: [.text("push")])])
        var driver = ConversationDriver(script, fault: .slowDrip(interval: 2))
        driver.send(.opened)
        driver.advance(to: 100)
        #expect(driver.texts == ["a", "b", "push"])
        #expect(driver.sent.map(\.at).enumerated().allSatisfy { Self.near($1, [2, 5, 12][$0]) })
    }

    @Test func aBurstSendsListsAndCountedPushesAtOnce() {
        let script = WebSocketScript(onConnect: [.text("a"), .text("b", delay: 1)],
                                     onMessage: [WebSocketReply(match: .any, messages: [.text("r1", delay: 5), .text("r2", delay: 5)])],
                                     pushes: [WebSocketPush(every: 10, times: 3, messages: [.text("push")])])
        var driver = ConversationDriver(script, fault: .burst)
        #expect(driver.send(.opened).prefix(2) == [.send(.text("a")), .send(.text("b"))])
        #expect(driver.send(.text("x")) == [.send(.text("r1")), .send(.text("r2"))])
        driver.advance(to: 10)
        #expect(driver.texts.suffix(3) == ["push", "push", "push"])
        #expect(driver.sent.suffix(3).allSatisfy { Self.near($0.at, 10) })
        driver.advance(to: 1000)
        #expect(driver.texts.count == 7)
    }

    /// A script's close is no message: a burst or a slow drip leaves its time alone.
    @Test func faultsOnMessagesLeaveTheClosesTime() {
        let script = WebSocketScript(onConnect: [.text("a", delay: 1)], close: WebSocketClose(code: 1001, reason: "", delay: 10))
        for fault in [StreamFault.burst, .slowDrip(interval: 3)] {
            var driver = ConversationDriver(script, fault: fault)
            driver.send(.opened)
            driver.advance(to: 9.99)
            #expect(driver.conversation.state == .open, "\(fault)")
            driver.advance(to: 10)
            #expect(driver.sent.last?.action == .close(code: 1001, reason: ""), "\(fault)")
        }
    }

    @Test func theTimeScaleScalesTheScript() {
        var driver = ConversationDriver(Self.chat)
        driver.conversation = WebSocketConversation(script: Self.chat, timeScale: 0.01, request: ConversationDriver.upgrade)
        driver.send(.opened)
        driver.advance(to: 0.0049)
        #expect(driver.texts == ["welcome"])
        driver.advance(to: 0.0051)
        #expect(driver.texts == ["welcome", #"{"type":"hello"}"#])
    }

    // MARK: Bounds

    /// A client flooding messages that wait for delayed answers: the pending timers stay
    /// bounded, and the server says it is overloaded.
    @Test func aFloodOfMessagesWaitingForAnswersIsBounded() {
        let script = WebSocketScript(onMessage: [WebSocketReply(match: .any, messages: [.text("later", delay: 60)])])
        var driver = ConversationDriver(script)
        driver.send(.opened)
        for index in 0..<(WebSocketConversation.maxPending + 10) { driver.send(.text("m\(index)")) }
        #expect(driver.conversation.pendingTimers <= WebSocketConversation.maxPending)
        #expect(driver.sent.last?.action == .close(code: WebSocketCloseCode.tryAgainLater, reason: "too many messages waiting for an answer"))
        #expect(driver.conversation.state == .closing)
    }

    @Test func framesAStallHoldsAreBounded() {
        let script = WebSocketScript(onMessage: [WebSocketReply(match: .any, messages: [.text("now")])])
        var driver = ConversationDriver(script, fault: .stall(after: 0, duration: 1))
        driver.send(.opened)
        for _ in 0..<(WebSocketConversation.maxPending + 5) { driver.send(.text("m")) }
        #expect(driver.conversation.droppedFrames == 5)
        driver.advance(to: 1)
        #expect(driver.texts.count == WebSocketConversation.maxPending)
    }

    @Test func aPlansConversationReadsItsScriptFaultAndTemplates() throws {
        var plan = ResponsePlan(status: 101)
        #expect(WebSocketConversation(plan: plan, request: ConversationDriver.upgrade) == nil)
        let template = try ResponseTemplate("{{request.path.room}}")
        plan.setWebSocket(WebSocketScript(onConnect: [WebSocketMessage(.template(template, json: false))]), pathParameters: ["room": "red"],
                          generator: SeededRandom(seed: 3))
        plan.streamFault = .closeWithoutCode(after: 1)
        var conversation = try #require(WebSocketConversation(plan: plan, request: ConversationDriver.upgrade))
        #expect(conversation.handle(.opened, at: 0).prefix(2) == [.send(.text("red")), .closeWithoutCode])
    }
}
