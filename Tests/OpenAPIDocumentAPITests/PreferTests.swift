import Foundation
@testable import OpenAPIDocumentAPI
import MockCore
import Testing

/// The `Prefer` header as the document API reads it, and as `DocumentedAnswer.prefer`
/// writes it: an example's name with commas, semicolons, spaces or quotes survives the trip.
@Suite struct PreferTests {
    static func prefer(_ value: String) -> Prefer {
        Prefer(MockRequest(method: "GET", uri: "/", headers: HeaderFields([("Prefer", value)]), body: Data(), baseURL: "http://127.0.0.1"))
    }

    struct Case: Sendable, CustomStringConvertible {
        let header: String
        let code: Int?
        let example: String?
        var dynamic = false
        var description: String { header }
    }

    static let cases: [Case] = [
        Case(header: "code=404", code: 404, example: nil),
        Case(header: "code=200, example=two", code: 200, example: "two"),
        Case(header: "code=200;example=two", code: 200, example: "two"),
        Case(header: #"code=200, example="two, by name; \"quoted\"""#, code: 200, example: #"two, by name; "quoted""#),
        Case(header: #"example = "back\\slash" , code = 201"#, code: 201, example: #"back\slash"#),
        Case(header: #"example="spaced name", dynamic=true"#, code: nil, example: "spaced name", dynamic: true),
        Case(header: #"example="", code=200"#, code: 200, example: ""),
        Case(header: #"example="never closed, code=500"#, code: nil, example: "never closed, code=500"),
        Case(header: "respond-async, wait=5, code=503", code: 503, example: nil),
    ]

    @Test(arguments: cases)
    func aPreferValueIsReadQuoteAware(_ test: Case) {
        let prefer = Self.prefer(test.header)
        #expect(prefer.code == test.code)
        #expect(prefer.example == test.example)
        #expect(prefer.dynamic == test.dynamic)
    }

    @Test(arguments: ["two", "two, by name", "a;b", #"with "quotes""#, #"back\slash"#, "spaced name", "", "ünïcode"])
    func aDocumentedAnswersPreferNamesItsExample(_ name: String) {
        let answer = DocumentedAnswer(code: "200", status: 200, example: name)
        let prefer = Self.prefer(answer.prefer)
        #expect(prefer.code == 200)
        #expect(prefer.example == name, "\(answer.prefer)")
    }

    @Test func aTokenIsSentAsItIsAndAnythingElseQuoted() {
        #expect(DocumentedAnswer(code: "200", status: 200, example: "two").prefer == "code=200, example=two")
        #expect(DocumentedAnswer(code: "200", status: 200, example: #"a, "b""#).prefer == #"code=200, example="a, \"b\"""#)
    }

    /// The document API answers with the example so named, where it answered 400 when the
    /// name was cut at its comma.
    @Test func theDocumentAPIGivesAnExampleNamedWithCommasAndQuotes() throws {
        let engine = try Documents.engine("things.yaml", stateful: false)
        let answer = engine.send("GET", "/v2/things", headers: ["Prefer": #"code=200, example="two, by name; \"quoted\"""#])
        #expect(answer.status == 200, "\(String(describing: answer.body))")
        #expect(answer.body?.arrayValue?.count == 2)
        let unknown = engine.send("GET", "/v2/things", headers: ["Prefer": #"example="three, by name""#])
        #expect(unknown.status == 400)
        #expect(unknown.body?["reason"]?.stringValue?.contains(#"example="three, by name""#) == true, "\(String(describing: unknown.body))")
    }
}
