@testable import BuiltInContracts
@testable import ContractHarness
import Foundation
import BuiltInMockAPIs
import MockCore
import Testing

/// How failures explain themselves: pure functions over an error and a body (#13).
@Suite struct DiagnosisTests {
    typealias Run = CheckRun<any RestaurantProvider>

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init(intValue: Int) { stringValue = "Index \(intValue)"; self.intValue = intValue }
        init(_ name: String) { self.init(stringValue: name) }
        init(_ index: Int) { self.init(intValue: index) }
    }

    static let page = Data(#"{"page_no":1,"pages":[{"id":1,"price":12},{"id":2,"price":299.99,"currency":"USD"}]}"#.utf8)

    /// Apple's JSONDecoder names the path of a number that does not fit: the value there is shown.
    @Test func aPathNamesTheValueTheServerSent() {
        let error = DecodingError.dataCorrupted(.init(codingPath: [Key("pages"), Key(1), Key("price")],
                                                      debugDescription: "Parsed JSON number <299.99> does not fit in Int."))
        #expect(Run.decodingDetail(error, body: Self.page) == "at pages[1].price the server sent 299.99")
        #expect(ContractViolation.describe(error).contains("at pages[1].price"))
    }

    /// swift-corelibs-foundation says "not valid JSON" with no path: the fractions are listed.
    @Test func noPathOnValidJSONListsTheFractions() {
        let error = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON."))
        let detail = Run.decodingDetail(error, body: Self.page) ?? ""
        #expect(detail.contains("the body is valid JSON"))
        #expect(detail.contains("pages[1].price = 299.99"))
        #expect(!detail.contains("pages[0].price"), "12 has no fraction")
    }

    @Test func aMissingKeyListsTheKeysThereAre() {
        let error = DecodingError.keyNotFound(Key("description"), .init(codingPath: [Key("pages"), Key(0)], debugDescription: ""))
        #expect(Run.decodingDetail(error, body: Self.page) == "the server's object at pages[0] has no key \"description\" (its keys: id, price)")
    }

    @Test func aBodyThatIsNotJSONIsShown() {
        let error = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON."))
        #expect(Run.decodingDetail(error, body: Data("<html>Bad Gateway</html>".utf8)) == "the body is not JSON: <html>Bad Gateway</html>")
    }

    /// A multipart body is shown part by part, including parts past the first 160 bytes,
    /// and one that does not parse says why.
    @Test func multipartBodiesAreAnalysed() {
        let params = #"{"name":"Lamp","price":"25000"}"#
        let body = "--B\r\nContent-Disposition: form-data; name=\"params\"\r\nContent-Type: application/json\r\n\r\n\(params)\r\n"
            + "--B\r\nContent-Disposition: form-data; name=\"images\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n"
            + String(repeating: "x", count: 300) + "\r\n--B--\r\n"
        let text = ServeEvent.multipartAnalysis(Data(body.utf8), contentType: "multipart/form-data; boundary=B")
        #expect(text.contains("1. \"params\", application/json, \(params.utf8.count) bytes: \(params)"), "\(text)")
        #expect(text.contains("2. \"images\" filename \"a.png\", image/png, 300 bytes"), "\(text)")
        let cut = ServeEvent.multipartAnalysis(Data(body.utf8.prefix(300)), contentType: "multipart/form-data; boundary=B")
        #expect(cut.contains("does not parse as multipart: the body has no closing boundary"), "\(cut)")
        // "--B" where "--B--" belongs: named as such, with how the body ends (#22).
        let unclosed = ServeEvent.multipartAnalysis(Data(body.replacingOccurrences(of: "--B--", with: "--B").utf8),
                                                    contentType: "multipart/form-data; boundary=B")
        #expect(unclosed.contains("does not parse as multipart: the closing boundary \"--B--\" is missing: after part 2 the body ends with \"--B\""),
                "\(unclosed)")
        #expect(unclosed.hasSuffix("and ends " + String(repeating: "x", count: 53) + "⏎--B⏎"), "\(unclosed)")
    }

    @Test func zoneShiftsAreNamedAndCollapsed() {
        #expect(OpenMarketContract.zoneHint(9 * 3600).contains("9 h late"))
        #expect(OpenMarketContract.zoneHint(1.5).isEmpty)
        let lines = (0..<5).map { "product \($0) created_at: … — 9 h late: the date formatter reads" } + ["price: 1"]
        #expect(OpenMarketContract.collapsingZoneShifts(lines).count == 4)
    }
}
