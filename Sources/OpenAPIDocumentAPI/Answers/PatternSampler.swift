import Foundation
import MockCore

/// Makes a string matching a regular expression of the common kind (literals, `.`,
/// classes `[a-z0-9_]` and `[^…]`, `\d \w \s`, groups with `|`, quantifiers `? * + {n}
/// {n,m}`, anchors), checked with the platform's regular expressions; nil when the
/// pattern uses more than that or the made string does not match.
enum PatternSampler {
    static func sample(_ pattern: String, using random: inout SeededRandom) -> String? {
        var parser = Parser(characters: Array(pattern))
        guard let node = parser.alternation(), parser.index == parser.characters.count else { return nil }
        var output = ""
        var budget = 10_000
        guard generate(node, into: &output, budget: &budget, using: &random) else { return nil }
        guard output.range(of: pattern, options: .regularExpression) != nil else { return nil }
        return output
    }

    indirect enum Node {
        case literal(Character)
        case set([ClosedRange<Character>], negated: Bool)
        case sequence([Node])
        case choice([Node])
        case repeated(Node, min: Int, max: Int)
        case empty
    }

    private static let printable: ClosedRange<Character> = " "..."~"

    private static func generate(_ node: Node, into output: inout String, budget: inout Int, using random: inout SeededRandom) -> Bool {
        budget -= 1
        guard budget > 0 else { return false }
        switch node {
        case .empty: return true
        case .literal(let character): output.append(character)
        case .set(let ranges, let negated):
            if negated {
                let candidates = (0..<95).map { Character(UnicodeScalar(32 + $0)!) }.filter { character in
                    !ranges.contains { $0.contains(character) } && character.isLetter || character.isNumber
                }.filter { character in !ranges.contains { $0.contains(character) } }
                guard !candidates.isEmpty else { return false }
                output.append(candidates[Int(random.next() % UInt64(candidates.count))])
            } else {
                guard !ranges.isEmpty else { return false }
                let range = ranges[Int(random.next() % UInt64(ranges.count))]
                let low = range.lowerBound.unicodeScalars.first!.value, high = range.upperBound.unicodeScalars.first!.value
                guard high >= low, let scalar = UnicodeScalar(low + UInt32(random.next() % UInt64(high - low + 1))) else { return false }
                output.append(Character(scalar))
            }
        case .sequence(let nodes):
            for part in nodes where !generate(part, into: &output, budget: &budget, using: &random) { return false }
        case .choice(let options):
            guard !options.isEmpty else { return true }
            return generate(options[Int(random.next() % UInt64(options.count))], into: &output, budget: &budget, using: &random)
        case .repeated(let inner, let least, let most):
            let upper = min(most, least + 3)
            let count = least + Int(random.next() % UInt64(max(upper - least, 0) + 1))
            for _ in 0..<count where !generate(inner, into: &output, budget: &budget, using: &random) { return false }
        }
        return true
    }

    struct Parser {
        let characters: [Character]
        var index = 0

        mutating func alternation() -> Node? {
            var options: [Node] = []
            repeat {
                guard let sequence = sequence() else { return nil }
                options.append(sequence)
            } while consume("|")
            return options.count == 1 ? options[0] : .choice(options)
        }

        mutating func sequence() -> Node? {
            var nodes: [Node] = []
            while index < characters.count, characters[index] != "|", characters[index] != ")" {
                guard let atom = atom() else { return nil }
                guard let quantified = quantifier(atom) else { return nil }
                nodes.append(quantified)
            }
            return .sequence(nodes)
        }

        mutating func atom() -> Node? {
            let character = characters[index]
            index += 1
            switch character {
            case "^", "$": return .empty
            case ".": return .set([PatternSampler.printable], negated: false)
            case "(":
                if consume("?") { guard consume(":") else { return nil } }
                guard let inner = alternation(), consume(")") else { return nil }
                return inner
            case "[": return characterClass()
            case "\\": return escape(inClass: false).map { .set($0, negated: false) }
            case "*", "+", "?", "{", ")": return nil
            default: return .literal(character)
            }
        }

        mutating func characterClass() -> Node? {
            let negated = consume("^")
            var ranges: [ClosedRange<Character>] = []
            var first = true
            while index < characters.count, characters[index] != "]" || first {
                first = false
                var low = characters[index]
                index += 1
                if low == "\\" {
                    guard let escaped = escape(inClass: true) else { return nil }
                    if escaped.count != 1 || escaped[0].lowerBound != escaped[0].upperBound { ranges += escaped; continue }
                    low = escaped[0].lowerBound
                }
                if index + 1 < characters.count, characters[index] == "-", characters[index + 1] != "]" {
                    var high = characters[index + 1]
                    index += 2
                    if high == "\\" {
                        guard let escaped = escape(inClass: true), escaped.count == 1 else { return nil }
                        high = escaped[0].lowerBound
                    }
                    guard low <= high else { return nil }
                    ranges.append(low...high)
                } else {
                    ranges.append(low...low)
                }
            }
            guard consume("]") else { return nil }
            return .set(ranges, negated: negated)
        }

        mutating func escape(inClass: Bool) -> [ClosedRange<Character>]? {
            guard index < characters.count else { return nil }
            let character = characters[index]
            index += 1
            switch character {
            case "d": return ["0"..."9"]
            case "w": return ["a"..."z", "A"..."Z", "0"..."9", "_"..."_"]
            case "s": return [" "..." "]
            case "D", "W", "S", "b", "B", "p", "P", "u", "x": return nil
            case "n": return ["\n"..."\n"]
            case "t": return ["\t"..."\t"]
            default: return [character...character]
            }
        }

        mutating func quantifier(_ atom: Node) -> Node? {
            guard index < characters.count else { return atom }
            switch characters[index] {
            case "?": index += 1; return lazy(.repeated(atom, min: 0, max: 1))
            case "*": index += 1; return lazy(.repeated(atom, min: 0, max: 3))
            case "+": index += 1; return lazy(.repeated(atom, min: 1, max: 4))
            case "{":
                index += 1
                var digits = ""
                while index < characters.count, characters[index].isNumber { digits.append(characters[index]); index += 1 }
                guard let least = Int(digits) else { return nil }
                var most = least
                if consume(",") {
                    var upper = ""
                    while index < characters.count, characters[index].isNumber { upper.append(characters[index]); index += 1 }
                    most = Int(upper) ?? least + 3
                }
                guard consume("}"), most >= least, most <= 10_000 else { return nil }
                return lazy(.repeated(atom, min: least, max: most))
            default:
                return atom
            }
        }

        private mutating func lazy(_ node: Node) -> Node {
            _ = consume("?")
            return node
        }

        mutating func consume(_ character: Character) -> Bool {
            guard index < characters.count, characters[index] == character else { return false }
            index += 1
            return true
        }
    }
}
