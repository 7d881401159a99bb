import Foundation
import MockServer
import MockCore
import Testing

/// The rules both in-process transports take from `InProcessExchange`, as a table.
@Suite struct InProcessExchangeTests {
    @Test(arguments: [
        (Fault?.none, URLError.Code?.none),
        (.truncatedBody, nil),
        (.hang, .timedOut),
        (.connectionReset, .networkConnectionLost),
        (.emptyResponse, .networkConnectionLost),
        (.malformedChunk, .cannotParseResponse),
        (.randomDataThenClose, .cannotParseResponse),
    ] as [(Fault?, URLError.Code?)])
    func eachFaultIsTheErrorURLSessionReports(fault: Fault?, error: URLError.Code?) {
        #expect(InProcessExchange.error(for: fault) == error)
    }

    @Test func aHangWaitsForEverAndADelayItsLength() {
        var plan = ResponsePlan(status: 200)
        plan.delay = 2
        #expect(InProcessExchange.firstByteWait(plan) == 2)
        plan.fault = .hang
        #expect(InProcessExchange.firstByteWait(plan) == .infinity)
    }

    @Test func theContentLengthIsTheWholeBodys() {
        let plan = ResponsePlan(status: 200, headers: ["content-length": "1", "Content-Type": "text/plain"], body: Data("four".utf8))
        let fields = InProcessExchange.responseHeaders(plan)
        #expect(fields.map(\.name) == ["Content-Type", "Content-Length"])
        #expect(fields.last?.value == "4")
    }

    @Test(arguments: [
        (301, "POST", "GET", true), (302, "POST", "GET", true), (301, "PUT", "PUT", false),
        (303, "PUT", "GET", true), (303, "HEAD", "HEAD", false),
        (307, "POST", "POST", false), (308, "PATCH", "PATCH", false),
    ])
    func aRedirectIsFollowedAsURLSessionFollowsIt(status: Int, method: String, next: String, dropsBody: Bool) throws {
        let redirect = try #require(InProcessExchange.redirect(status: status, location: "/b?c=1", method: method,
                                                                from: URL(string: "https://api.example.invalid/a/x")!))
        #expect(redirect.url.absoluteString == "https://api.example.invalid/b?c=1")
        #expect(redirect.method == next)
        #expect(redirect.dropsBody == dropsBody)
    }

    @Test func noRedirectWithoutARedirectStatusOrALocation() {
        let here = URL(string: "http://127.0.0.1/")!
        #expect(InProcessExchange.redirect(status: 200, location: "/b", method: "GET", from: here) == nil)
        #expect(InProcessExchange.redirect(status: 302, location: nil, method: "GET", from: here) == nil)
    }
}
