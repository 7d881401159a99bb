import Foundation
import NIOCore
import MockCore
import Testing
@testable import MockServer

/// The event loop's kept answers (`ResponseCache`, #24): found only for the same header
/// list and the same body storage, bounded in entries and body size, and a kept answer
/// that is hit survives a stream of answers that never repeat.
@Suite struct ResponseCacheTests {
    static let headers: HeaderFields = ["Content-Type": "application/json"]
    static func body(_ byte: UInt8, count: Int = 100) -> Data { Data(repeating: byte, count: count) }
    static func bytes(_ text: String) -> ByteBuffer { ByteBufferAllocator().buffer(string: text) }

    static func keep(_ cache: ResponseCache, _ text: String, body: Data, status: Int = 200, keepAlive: Bool = true) {
        cache.keep(bytes(text), status: status, http10: false, keepAlive: keepAlive, headers: headers, body: body)
    }

    static func answer(_ cache: ResponseCache, body: Data, headers: HeaderFields = headers, status: Int = 200,
                       http10: Bool = false, keepAlive: Bool = true) -> String? {
        cache.answer(status: status, http10: http10, keepAlive: keepAlive, headers: headers, body: body)
            .map { String(buffer: $0) }
    }

    @Test func anAnswerIsFoundOnlyForTheSamePartsInMemory() {
        let cache = ResponseCache()
        let body = Self.body(1)
        Self.keep(cache, "menu", body: body)
        #expect(Self.answer(cache, body: body) == "menu")
        // Equal bytes in other storage, an equal list in another array: not the kept answer.
        #expect(Self.answer(cache, body: Self.body(1)) == nil)
        #expect(Self.answer(cache, body: body, headers: HeaderFields([("Content-Type", "application/json")])) == nil)
        #expect(Self.answer(cache, body: body, status: 201) == nil)
        #expect(Self.answer(cache, body: body, http10: true) == nil)
        #expect(Self.answer(cache, body: body, keepAlive: false) == nil)
        // A slice of the kept body starts at the same address but is shorter.
        #expect(Self.answer(cache, body: body.prefix(80)) == nil)
    }

    @Test func http2FramesAndHTTP1BytesAreKeptApart() {
        let cache = ResponseCache()
        let body = Self.body(1)
        Self.keep(cache, "http/1.1 answer", body: body)
        #expect(cache.frames(status: 200, headers: Self.headers, body: body) == nil)
        let frames = ResponseCache.Frames(head: NIOAny(Self.bytes("head")), body: Self.bytes("data"))
        cache.keep(frames, status: 200, headers: Self.headers, body: body)
        #expect(cache.frames(status: 200, headers: Self.headers, body: body).map { String(buffer: $0.body) } == "data")
        #expect(cache.frames(status: 200, headers: Self.headers, body: body).map { String(buffer: Head.unwrapInboundIn($0.head)) } == "head")
        #expect(cache.frames(status: 404, headers: Self.headers, body: body) == nil)
        #expect(cache.frames(status: 200, headers: Self.headers, body: Self.body(1)) == nil)
        #expect(Self.answer(cache, body: body) == "http/1.1 answer")
    }

    @Test func bodiesOutsideTheLimitsAreNotAdmitted() {
        #expect(!ResponseCache.admits(Self.body(1, count: ResponseCache.minBodyBytes - 1)))
        #expect(ResponseCache.admits(Self.body(1, count: ResponseCache.minBodyBytes)))
        #expect(ResponseCache.admits(Self.body(1, count: ResponseCache.maxBodyBytes)))
        #expect(!ResponseCache.admits(Self.body(1, count: ResponseCache.maxBodyBytes + 1)))
    }

    @Test func itKeepsAtMostItsSlots() {
        let cache = ResponseCache()
        let bodies = (0..<(ResponseCache.slots * 4)).map { Self.body(UInt8($0)) }
        for (index, body) in bodies.enumerated() { Self.keep(cache, "answer \(index)", body: body) }
        #expect(cache.count == ResponseCache.slots)
        // The last ones are kept, the first ones are gone.
        #expect(Self.answer(cache, body: bodies.last!) == "answer \(bodies.count - 1)")
        #expect(Self.answer(cache, body: bodies[0]) == nil)
    }

    @Test func anAnswerHitSinceTheHandPassedGetsASecondChance() {
        let cache = ResponseCache()
        let hot = Self.body(0)
        Self.keep(cache, "hot", body: hot)
        let fillers = (1..<ResponseCache.slots).map { Self.body(UInt8($0)) }
        for body in fillers { Self.keep(cache, "filler", body: body) }
        // Between answers that never repeat, the hot one is hit each time: it stays.
        for round in 0..<(ResponseCache.slots * 3) {
            #expect(Self.answer(cache, body: hot) == "hot", "round \(round)")
            Self.keep(cache, "unique", body: Self.body(200))
        }
        #expect(cache.count == ResponseCache.slots)
        // Not hit again, it goes within two turns of the hand (the first clears its mark).
        for _ in 0..<(ResponseCache.slots * 2) { Self.keep(cache, "unique", body: Self.body(201)) }
        #expect(Self.answer(cache, body: hot) == nil)
    }
}

/// Reads a kept head back as the bytes it was made from.
private final class Head: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
}
