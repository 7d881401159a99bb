import Foundation
@testable import MockCore
import Testing

/// `RegexSyntax` spares a scenario file's load the compile of a plainly valid pattern; it
/// must never accept what ICU (`NSRegularExpression`) refuses, and whatever it leaves
/// alone is still checked by ICU.
@Suite struct RegexSyntaxTests {
    static func compiles(_ pattern: String) -> Bool { (try? NSRegularExpression(pattern: pattern)) != nil }

    @Test(arguments: [
        "^0*([2-9]|[1-9][0-9]+)$", "abc", "a.c", "^/api/products/[0-9]+$", "\\d{3}-\\d{4}", "(?:ab|cd)+?",
        "[A-Za-z_][A-Za-z0-9_]*", "[^/]+\\.png", "Bearer [A-Za-z0-9._-]+", "x{2,}", "x{2,5}?", "\\s*\\(\\)\\s*",
        "[.*+?()|]", "item-0[1-9]", "a|b|c", "((a)(b))", "\\w+@\\w+\\.com", "[\\d\\s]", "\\[\\]\\{\\}",
        "[a-]", "[-a]", "[-]", "[^-a-z]", "[a-b-]",
    ])
    func plainPatternsAreValidWithoutICU(pattern: String) {
        #expect(RegexSyntax.isPlainlyValid(pattern))
        #expect(Self.compiles(pattern), "ICU agrees")
    }

    /// Invalid, or outside the subset: ICU decides.
    @Test(arguments: [
        "", "a**", "a++", "(", ")", "a)", "[z-a]", "a{3,2}", "a{,3}", "a{1", "[]", "[^]", "(?i)abc", "(?=a)b", "\\y", "\\1",
        "^*", "a|", "|a", "()", "[[:alpha:]]", "[a--]", "[a-b-c]", "[--a]", "[a&&b]", "é", "{", "}", "]", "a{12345}", "\\", "[a",
        "[{ab}]", "[$]", "\\p{L}", "\\b", "[--]", "[^--]", "a[--]*",
    ])
    func othersAreLeftToICU(pattern: String) {
        #expect(!RegexSyntax.isPlainlyValid(pattern))
    }

    /// A pattern longer than ICU's compiled-program limit allows is ICU's to refuse.
    @Test func aVeryLongPatternIsLeftToICU() {
        #expect(!RegexSyntax.isPlainlyValid(String(repeating: ".", count: 16_777_200)))
        #expect(!RegexSyntax.isPlainlyValid(String(repeating: "a", count: 4097)))
        #expect(RegexSyntax.isPlainlyValid(String(repeating: "a", count: 4096)))
    }

    /// Patterns built at random from the pieces of the syntax, valid or not: ICU compiles
    /// every one the subset accepts, and the subset accepts enough of them to matter.
    @Test func nothingAcceptedIsRefusedByICU() async {
        let (accepted, refused) = await onOwnThread { () -> (Int, [String]) in
            let pieces = ["a", "b", "Z", "0", "9", ".", "^", "$", "|", "(", ")", "(?:", "[", "]", "[^", "-", "*", "+", "?", "{", "}",
                          "{2}", "{1,3}", "{3,1}", "{2,}", ",", "\\", "\\d", "\\w", "\\s", "\\.", "\\-", "\\y", ":", "&", "~", "$", "{", " ",
                          "_", "/", "@", "#", "=", "!", "<", ">", ";", "'", "\"", "%", "é"]
            var random = SeededRandom(seed: 24)
            var accepted = 0, refused: [String] = []
            for _ in 0..<50_000 {
                let length = Int.random(in: 1...8, using: &random)
                let pattern = (0..<length).map { _ in pieces.randomElement(using: &random)! }.joined()
                guard RegexSyntax.isPlainlyValid(pattern) else { continue }
                accepted += 1
                if !Self.compiles(pattern) { refused.append(pattern) }
            }
            return (accepted, refused)
        }
        #expect(refused.isEmpty, "accepted, but ICU refuses: \(refused.prefix(20))")
        #expect(accepted > 2_500, "only \(accepted) of 50,000 accepted")
    }

    /// Every bracket class of up to four items from the characters that matter in a set,
    /// in every order: the random patterns above rarely build `[--]`, which ICU refuses.
    @Test func everyShortClassAcceptedCompiles() async {
        let (accepted, refused) = await onOwnThread { () -> (Int, [String]) in
            let items = ["-", "^", "a", "z", "0", "\\", "\\-", "\\d", ".", "(", "|", "&", "[", "]", ":", "$", "{", "~"]
            var refused: [String] = []
            var accepted = 0
            func build(_ prefix: String, _ left: Int) {
                for closing in ["]", "]*"] {
                    let pattern = prefix + closing
                    if RegexSyntax.isPlainlyValid(pattern) {
                        accepted += 1
                        if !Self.compiles(pattern) { refused.append(pattern) }
                    }
                }
                guard left > 0 else { return }
                for item in items { build(prefix + item, left - 1) }
            }
            build("[", 4)
            return (accepted, refused)
        }
        #expect(refused.isEmpty, "accepted, but ICU refuses: \(refused.prefix(20))")
        #expect(accepted > 1_000, "only \(accepted) accepted")
    }

    /// The load still refuses a bad pattern, and a plain one is matched as ICU matches it.
    @Test func scenarioFilesStillRefuseBadPatternsAndMatchPlainOnes() throws {
        func scenario(_ pattern: String) -> Data {
            Data(#"{"version": 1, "name": "s", "rules": [{"name": "r", "request": {"method": "GET", "path": "/x", "query": {"q": {"matches": "\#(pattern)"}}}, "response": {"status": 200}}]}"#.utf8)
        }
        for bad in ["a{3,2}", "(", "[z-a]", "a**"] {
            #expect(throws: FixtureError.self) { try ScenarioFile.parse(scenario(bad), file: "bad.json") }
            do {
                _ = try ScenarioFile.parse(scenario(bad), file: "bad.json")
            } catch {
                #expect(error.problems.map(\.reason) == ["not a valid regular expression"], "\(bad): \(error)")
            }
        }
        let plain = try ScenarioFile.parse(scenario("^0*([2-9]|[1-9][0-9]+)$"), file: "plain.json")
        let matcher = try #require(plain.rules.first?.request.query["q"])
        #expect(matcher.matches("2") && matcher.matches("0012") && matcher.matches("10"))
        #expect(!matcher.matches("1") && !matcher.matches("01") && !matcher.matches("2a"))
    }

    /// A value matches when the whole of it matches the pattern, by any alternative: the
    /// first match found is not the only candidate (WireMock's `matches`).
    @Test func theWholeValueMustMatchByAnyAlternative() {
        #expect(StringMatcher.matches("a|ab").matches("ab"))
        #expect(StringMatcher.matches("a|ab").matches("a"))
        #expect(!StringMatcher.matches("a|ab").matches("abc"))
        #expect(!StringMatcher.matches("[0-9]+").matches("12\n"))
        #expect(!StringMatcher.matches("(unclosed").matches("(unclosed"))
    }
}
