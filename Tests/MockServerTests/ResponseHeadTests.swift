import NIOCore
import MockCore
import Testing
@testable import MockServer

/// `ResponseHead.capacity(for:)` is what a response's buffer is allocated with: the head
/// must fit, whatever the status, framing and connection.
@Suite struct ResponseHeadCapacityTests {
    @Test(arguments: [100, 200, 304, 418, 431, 511, 599, 799])
    func theHeadFitsTheCapacity(status: Int) {
        let headers: HeaderFields = [
            "Content-Type": "application/json; charset=utf-8",
            "Cache-Control": "public, max-age=3600",
            "ETag": "\"0123456789abcdef\"",
            "X-Mock-Scenario-Step": String(repeating: "s", count: 300),
            "Content-Length": "999",  // replaced by the framing
        ]
        for framing in [ResponseHead.Framing.length(123_456_789), .chunked, .none] {
            for (http10, keepAlive) in [(false, true), (false, false), (true, false)] {
                var buffer = ByteBufferAllocator().buffer(capacity: 0)
                ResponseHead.write(status: status, http10: http10, headers: headers, framing: framing, keepAlive: keepAlive, into: &buffer)
                #expect(buffer.readableBytes <= ResponseHead.capacity(for: headers), "\(status) \(framing)")
            }
        }
        #expect(ResponseHead.capacity(for: [:]) >= "HTTP/1.1 511 Network Authentication Required\r\nContent-Length: 123456789\r\nConnection: keep-alive\r\n\r\n".utf8.count)
    }
}
