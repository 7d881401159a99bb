import Foundation
import MockFixtures
import MockCore
import Testing

/// `JSONValue(parsing:)` walks bytes itself; it must agree with Foundation on every
/// document we ship and refuse what RFC 8259 refuses.
@Suite struct JSONParserTests {
    /// Foundation's reading of the same bytes, as a `JSONValue`.
    static func foundation(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    @Test func agreesWithFoundationOnEveryShippedJSONFile() throws {
        let root = MockFixtures.directory
        let files = FileManager.default.enumerator(atPath: root.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }
        #expect(files.count >= 10)
        for file in files {
            let data = try Data(contentsOf: root.appendingPathComponent(file))
            #expect(JSONValue(parsing: data) == (try Self.foundation(data)), "\(file)")
        }
    }

    @Test(arguments: [
        (#"{"a": [1, -2, 3.5, 1e3, -0.25E-2, 12345678901234567890], "b": null, "c": true, "d": false}"#, "numbers and literals"),
        (#"" \" \\ \/ \b \f \n \r \t \u00e9 \ud83c\udf5c plain""#, "every escape, a surrogate pair"),
        (#"  [ ]  "#, "an empty array between spaces"),
        (#"{}"#, "an empty object"),
        (#""한국어 é 🍜""#, "UTF-8 text"),
        (#"{"k": 1, "k": 2}"#, "a repeated key: the first wins, as in JSONDecoder"),
        ("\u{FEFF}{\"bom\": 1}", "a byte order mark"),
        ("0", "a bare number"),
        (#"{"deep": [[[[{"x": [0.1, 9007199254740993]}]]]]}"#, "nesting and a number past 2^53"),
        (#"{"a": [{"b": 1, "c": [2, 3]}, {"d": {}}, []], "e": [[], [4, {"b": 2, "b": 3}]], "f": {"g": [5]}}"#,
         "siblings nested in siblings, each container built at its end"),
    ])
    func parsesLikeFoundation(json: String, what: String) throws {
        let data = Data(json.utf8)
        #expect(JSONValue(parsing: data) == (try Self.foundation(data)), "\(what)")
    }

    @Test(arguments: [
        ("", "empty input"),
        ("[1, 2,]", "a trailing comma in an array"),
        (#"{"a": 1,}"#, "a trailing comma in an object"),
        ("01", "a leading zero"),
        ("1.", "a fraction without digits"),
        ("1e", "an exponent without digits"),
        ("-", "a sign alone"),
        ("+1", "a plus sign"),
        (".5", "no integer part"),
        ("NaN", "NaN"),
        ("1e999", "a number out of range"),
        (#"{"a" 1}"#, "a missing colon"),
        (#"{a: 1}"#, "an unquoted name"),
        ("'x'", "single quotes"),
        ("\"a\u{01}b\"", "a raw control character in a string"),
        (#""\x""#, "an unknown escape"),
        (#""\u12""#, "a short unicode escape"),
        (#""\ud83c""#, "a lone high surrogate"),
        (#""\udf5c""#, "a lone low surrogate"),
        (#""abc"#, "an unterminated string"),
        ("[1] [2]", "two values"),
        ("tru", "a cut literal"),
        ("nul", "a cut null"),
        ("{\"a\": [1, 2}", "mismatched brackets"),
    ])
    func refuses(json: String, what: String) {
        #expect(JSONValue(parsing: Data(json.utf8)) == nil, "\(what) must be refused")
    }

    /// Invalid UTF-8 in a string is refused, however it is invalid; U+FFFD written out
    /// (what a repairing decoder would put in its place) is valid text and is kept.
    @Test(arguments: [
        ([0xC3, 0x28], "a lead byte without its continuation"),
        ([0xFF], "a byte that never occurs in UTF-8"),
        ([0xC0, 0xAF], "an overlong encoding of /"),
        ([0xED, 0xA0, 0x80], "an encoded surrogate"),
        ([0xF4, 0x90, 0x80, 0x80], "a code point past U+10FFFF"),
        ([0x61, 0xE2, 0x82], "a sequence cut short"),
        ([0x80], "a lone continuation byte"),
    ] as [([UInt8], String)])
    func refusesInvalidUTF8(bytes: [UInt8], what: String) {
        #expect(JSONValue(parsing: Data([0x22] + bytes + [0x22])) == nil, "\(what) must be refused")
        #expect(JSONValue(parsing: Data([0x22, 0x5C, 0x6E] + bytes + [0x22])) == nil, "\(what) after an escape must be refused")
    }

    /// A string with escapes is checked as a whole: a sequence cut by an escape is refused,
    /// and text around escapes keeps every character.
    @Test func escapesInsideMultibyteTextKeepTheTextAndRefuseACutSequence() {
        // "€" is E2 82 AC: cut by `\n` it is no longer UTF-8.
        #expect(JSONValue(parsing: Data([0x22, 0xE2, 0x5C, 0x6E, 0x82, 0xAC, 0x22])) == nil)
        #expect(JSONValue(parsing: Data(#""€\n\u00e9\ud83c\udf5c \"ß\" \\ end""#.utf8)) == .string("€\né🍜 \"ß\" \\ end"))
    }

    @Test func keepsAReplacementCharacterThatWasWrittenOut() {
        #expect(JSONValue(parsing: Data([0x22, 0xEF, 0xBF, 0xBD, 0x22])) == .string("\u{FFFD}"))
        #expect(JSONValue(parsing: Data([0x22, 0x5C, 0x74, 0xEF, 0xBF, 0xBD, 0x22])) == .string("\t\u{FFFD}"))
    }

    /// A hostile body cannot exhaust the stack: nesting past the limit is refused, and
    /// nesting up to it parses.
    @Test func nestingIsLimited() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONValue(parsing: Data(deep.utf8)) == nil)
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(JSONValue(parsing: Data(fine.utf8)) != nil)
    }
}
