/// Recognises regular expressions written in a plain subset of ICU's syntax, so a scenario
/// file's `matches` patterns can be checked without compiling them at load.
///
/// The first `NSRegularExpression` of a process sets up ICU's regex tables, a one-time
/// cost that is large beside the rest of `mock-server`'s start-up, and the shipped
/// scenarios hold only one pattern. A pattern is compiled when it first meets a request
/// either way; this only spares the compile done to check it. The subset is one every ICU
/// version accepts: literals, `.`, `^`, `$`, the escapes `\d \D \w \W \s \S \n \r \t`
/// and escaped ASCII punctuation, bracket classes of plain characters and ordered ranges
/// (a `-` first or last),
/// groups `( )` and `(?: )`, alternation, and the quantifiers `* + ? {n} {n,} {n,m}`
/// (n ≤ m), each optionally lazy. Anything else, valid or not, is `false` here and left
/// to ICU to judge. `RegexSyntaxTests` compiles thousands of generated patterns to show
/// that nothing this accepts is refused by ICU.
enum RegexSyntax {
    static func isPlainlyValid(_ pattern: String) -> Bool {
        // ICU refuses a compiled program past 2^24 units: a long pattern is ICU's to judge.
        guard pattern.utf8.count <= 4096 else { return false }
        var parser = Parser(bytes: Array(pattern.utf8))
        return parser.alternation(depth: 0) && parser.index == parser.bytes.count
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        /// Beyond this nesting, ICU decides (and no stack is at risk).
        static let maxDepth = 32
        /// Characters that stand for themselves outside a class.
        static let literals: Set<UInt8> = Set(Array(" _,:/@#%=!'\"<>~;-&".utf8))
        /// Characters that stand for themselves inside a class: none of ICU's set syntax
        /// (`-`, `&`, `~`, `[`, `]`, `^`, `\`, `:` of `[:alpha:]`, `{` of strings, `$`).
        static let classLiterals: Set<UInt8> = Set(Array(" _,/@#%=!'\"<>;.*+?()|".utf8))
        /// ASCII punctuation that ICU takes literally after a backslash.
        static let escapable: Set<UInt8> = Set(Array("\\.^$|?*+()[]{}/-_,:;@#%=!'\"<>~&".utf8))
        static let classEscapes: Set<UInt8> = Set(Array("dDwWsSnrt".utf8))

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        static func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }

        mutating func alternation(depth: Int) -> Bool {
            guard depth <= Self.maxDepth, sequence(depth: depth) else { return false }
            while peek == UInt8(ascii: "|") {
                index += 1
                guard sequence(depth: depth) else { return false }
            }
            return true
        }

        /// One or more terms: an empty branch is left to ICU.
        mutating func sequence(depth: Int) -> Bool {
            var terms = 0
            while let byte = peek, byte != UInt8(ascii: "|"), byte != UInt8(ascii: ")") {
                guard term(depth: depth) else { return false }
                terms += 1
            }
            return terms > 0
        }

        mutating func term(depth: Int) -> Bool {
            guard let byte = peek else { return false }
            switch byte {
            case UInt8(ascii: "^"), UInt8(ascii: "$"):
                index += 1
                // A quantified anchor is left to ICU.
                return !isQuantifier
            case UInt8(ascii: "("):
                index += 1
                if peek == UInt8(ascii: "?") {
                    guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ":") else { return false }
                    index += 2
                }
                guard alternation(depth: depth + 1), peek == UInt8(ascii: ")") else { return false }
                index += 1
            case UInt8(ascii: "["):
                guard bracketClass() else { return false }
            case UInt8(ascii: "\\"):
                guard escape(in: Self.escapable) else { return false }
            case UInt8(ascii: "."):
                index += 1
            default:
                guard Self.isAlphanumeric(byte) || Self.literals.contains(byte) else { return false }
                index += 1
            }
            return quantifier()
        }

        var isQuantifier: Bool {
            guard let byte = peek else { return false }
            return byte == UInt8(ascii: "*") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "{")
        }

        /// An optional quantifier, then an optional `?` (lazy); never two quantifiers in a row.
        mutating func quantifier() -> Bool {
            guard let byte = peek else { return true }
            switch byte {
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
                index += 1
            case UInt8(ascii: "{"):
                index += 1
                guard let low = number() else { return false }
                var high = low
                if peek == UInt8(ascii: ",") {
                    index += 1
                    high = peek == UInt8(ascii: "}") ? Int.max : (number() ?? -1)
                }
                guard peek == UInt8(ascii: "}"), low <= high else { return false }
                index += 1
            default:
                return true
            }
            if peek == UInt8(ascii: "?") { index += 1 }
            return !isQuantifier
        }

        /// One to four digits.
        mutating func number() -> Int? {
            var value = 0, digits = 0
            while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 4 {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            guard digits > 0, let byte = peek, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            return value
        }

        /// `\` and one of `letters`' escapes or an escapable punctuation mark.
        mutating func escape(in punctuation: Set<UInt8>) -> Bool {
            guard index + 1 < bytes.count else { return false }
            let next = bytes[index + 1]
            guard Self.classEscapes.contains(next) || punctuation.contains(next) else { return false }
            index += 2
            return true
        }

        /// `[`, an optional `^`, one or more items (a plain character, a range of two in
        /// order, an escape, a `-` first or last), `]`.
        mutating func bracketClass() -> Bool {
            index += 1
            if peek == UInt8(ascii: "^") { index += 1 }
            var items = 0
            while let byte = peek, byte != UInt8(ascii: "]") {
                let last = index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "]")
                if byte == UInt8(ascii: "-") {
                    // A `-` first or last is itself; anywhere else it is a range or a set operation.
                    // `[--]`: ICU takes a `-` after a leading `-` for an operator.
                    guard items == 0 || (last && bytes[index - 1] != UInt8(ascii: "-")) else { return false }
                    index += 1
                } else if byte == UInt8(ascii: "\\") {
                    guard escape(in: Self.escapable) else { return false }
                } else {
                    guard Self.isAlphanumeric(byte) || Self.classLiterals.contains(byte) else { return false }
                    index += 1
                    if peek == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "]") {
                        let high = bytes[index + 1]
                        guard Self.isAlphanumeric(high) || Self.classLiterals.contains(high), byte <= high else { return false }
                        index += 2
                    }
                }
                items += 1
            }
            guard items > 0, peek == UInt8(ascii: "]") else { return false }
            index += 1
            return true
        }
    }
}
