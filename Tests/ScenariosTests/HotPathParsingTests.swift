import Foundation
import MockCore
import Testing

/// The byte-level request parsing that replaced Foundation string calls on the hot path.
@Suite struct HotPathParsingTests {
    @Test(arguments: [
        ("q=plain", "plain"),
        ("q=a+b", "a b"),
        ("q=a%20b%2Bc", "a b+c"),
        ("q=%E2%82%AC5", "€5"),
        ("q=caf%C3%A9", "café"),
        ("q=100%", "100%"),          // a cut escape is kept as sent
        ("q=%zz+x", "%zz x"),        // not hex: kept, + still a space
        ("q=%FF", "%FF"),            // not UTF-8: kept as sent
        ("q=", ""),
    ])
    func queryValuesAreDecoded(query: String, expected: String) {
        #expect(MockRequest(method: "GET", uri: "/x?" + query).queryValue("q") == expected)
    }

    /// Items in order; empty items are skipped, a name without "=" has an empty value,
    /// and only the first "=" separates name from value.
    @Test func queriesSplitIntoItemsInOrder() {
        let request = MockRequest(method: "get", uri: "/x/y?a=1&&b=&c&=d&e=f=g&caf%C3%A9=%E2%82%AC&ü=ß#frag&z=9")
        #expect(request.method == "GET")
        #expect(request.path == "/x/y")
        #expect(request.query.map(\.name) == ["a", "b", "c", "", "e", "café", "ü"])
        #expect(request.query.map(\.value) == ["1", "", "", "d", "f=g", "€", "ß"])
        #expect(MockRequest(method: "GET", uri: "/x?").query.isEmpty)
        #expect(MockRequest(method: "GET", uri: "/x?&&").query.isEmpty)
        #expect(MockRequest(method: "GET", uri: "?a=1").path == "/")
        let absolute = MockRequest(method: "GET", uri: "http://example.com:8080/api/products?page_no=2")
        #expect(absolute.path == "/api/products")
        #expect(absolute.queryValue("page_no") == "2")
        #expect(MockRequest(method: "GET", uri: "https://example.com").path == "/")
    }

    /// The byte-offset split (#24) against the Substring one it replaced, kept here as the
    /// reference, on seeded random targets built from the characters that matter.
    @Test func theSplitAgreesWithTheStringReference() async {
        let disagreements = await onOwnThread { () -> [String] in
            let pieces = ["/", "?", "&", "=", "#", "%", "+", "%2", "%41", "%E2%82%AC", "%C3", "%zz", "a", "B", "9",
                          "é", "€", "ü", "http://", "https://", "HTTPS://", "h:", "host:8080", "://", "api", "products", ""]
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            func next(_ bound: Int) -> Int {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            let uri = (0..<next(12)).map { _ in pieces[next(pieces.count)] }.joined()
            let request = MockRequest(method: "GET", uri: uri)
            let (path, query) = ReferenceSplit.split(uri: uri)
            if request.path != path || request.query.map(\.name) != query.map(\.name) || request.query.map(\.value) != query.map(\.value) {
                disagreements.append(uri)
            }
        }
        return disagreements
        }
        #expect(disagreements.count == 0, "the first targets where they differ: \(disagreements.prefix(5))")
    }

    @Test func encodedNamesAreDecodedToo() {
        #expect(MockRequest(method: "GET", uri: "/x?page%5Fno=2").queryValue("page_no") == "2")
    }

    @Test func pathsMatchSegmentBySegment() {
        let pattern = PathPattern("/api/products/{id}/secret")
        #expect(pattern.match("/api/products/12/secret") == ["id": "12"])
        #expect(pattern.match("//api//products/12/secret/") == ["id": "12"], "empty segments are skipped")
        #expect(pattern.match("/api/products/12") == nil)
        #expect(pattern.match("/api/products/12/secret/more") == nil)
        #expect(pattern.match("/api/product/12/secret") == nil)
        #expect(PathPattern("/images/{file}").match("/images/a%20b.png") == ["file": "a b.png"])
        #expect(PathPattern("/images/*").match("/images/x.png") == [:])
        #expect(PathPattern("/static/**").match("/static/a/b/c") == [:])
        #expect(PathPattern("/").match("/") == [:])
        #expect(PathPattern("/menü").match("/menü") == [:])
    }

    @Test func headerNamesCompareIgnoringASCIICase() {
        #expect("Content-Type".caseInsensitiveEquals("content-type"))
        #expect("ETAG".caseInsensitiveEquals("etag"))
        #expect(!"ETag".caseInsensitiveEquals("ETa"))
        #expect(!"a@".caseInsensitiveEquals("a`"), "only letters fold")
        #expect(!"x-a".caseInsensitiveEquals("x-b"))
    }
}

/// The byte comparisons and the shared-list check of the response path (#24).
@Suite struct HeaderComparisonTests {
    @Test func caseInsensitiveEqualityFoldsASCIIOnly() {
        #expect("Content-Type".caseInsensitiveEquals("content-type"))
        #expect("ETAG".caseInsensitiveEquals("etag"))
        #expect(!"Content-Type".caseInsensitiveEquals("Content-Typf"))
        #expect(!"Content-Type".caseInsensitiveEquals("Content-Type2"))
        #expect(!"[".caseInsensitiveEquals("{"))                 // 0x5B and 0x7B differ by 0x20 but are no letters
        #expect(!"K".caseInsensitiveEquals("\u{212A}"))           // the Kelvin sign is no K
        #expect("é".caseInsensitiveEquals("é") && !"É".caseInsensitiveEquals("é"))
    }

    @Test func utf8EqualityIsByteForByte() {
        #expect("127.0.0.1:8080".utf8Equals("127.0.0.1:8080"))
        #expect(!"127.0.0.1:8080".utf8Equals("127.0.0.1:8081"))
        #expect(!"\u{212A}".utf8Equals("K"))
        #expect(!"e\u{301}".utf8Equals("\u{E9}"))                // canonically equivalent, other bytes
        #expect("e\u{301}" == "\u{E9}")
        #expect("".utf8Equals(""))
    }

    @Test func aCopyOfAListSharesItsStorageUntilEitherChanges() {
        let list: HeaderFields = ["Content-Type": "application/json", "ETag": "\"1\""]
        var copy = list
        #expect(list.sharesStorage(with: copy))
        let same: HeaderFields = ["Content-Type": "application/json", "ETag": "\"1\""]
        #expect(!list.sharesStorage(with: same), "equal fields in another array are another list")
        copy.set("ETag", "\"2\"")
        #expect(!list.sharesStorage(with: copy))
        #expect(list["ETag"] == "\"1\"")
    }
}

/// The request-target split as it was before it moved to byte offsets (#24): String and
/// Substring calls throughout, slower but plainly right.
private enum ReferenceSplit {
    static func split(uri target: String) -> (String, [(name: String, value: String)]) {
        // A fragment is no part of the path or the query.
        let uri = target.firstIndex(of: "#").map { target[..<$0] } ?? Substring(target)
        if uri.hasPrefix("/") && !uri.contains("?") { return (String(uri), []) }
        var rawPath = uri
        var rawQuery: Substring = ""
        if let mark = uri.firstIndex(of: "?") {
            rawPath = uri[..<mark]
            rawQuery = uri[uri.index(after: mark)...]
        }
        if let hash = rawQuery.firstIndex(of: "#") { rawQuery = rawQuery[..<hash] }
        let scheme = rawPath.prefix(8).lowercased()
        if scheme.hasPrefix("http://") || scheme.hasPrefix("https://"), let afterScheme = rawPath.range(of: "://")?.upperBound {
            let rest = rawPath[afterScheme...]
            rawPath = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        let path = rawPath.isEmpty ? "/" : String(rawPath)
        let items = rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { item in
            guard let equals = item.firstIndex(of: "=") else { return (name: decode(item), value: "") }
            return (name: decode(item[..<equals]), value: decode(item[item.index(after: equals)...]))
        }
        return (path, items)
    }

    static func decode(_ text: Substring) -> String {
        let plus = text.replacingOccurrences(of: "+", with: " ")
        guard text.contains("%") else { return plus }
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let digits = utf8[utf8.index(after: index)...].prefix(2)
                guard digits.count == 2, digits.allSatisfy("0123456789abcdefABCDEF".utf8.contains),
                      let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16) else { return plus }
                bytes.append(value)
                index = utf8.index(index, offsetBy: 3)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(bytes: bytes, encoding: .utf8) ?? plus
    }
}
