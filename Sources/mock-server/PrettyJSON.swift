import MockCore

/// JSON written the same way on every platform and Foundation version: keys sorted by
/// their UTF-8 bytes, two-space indents, one member or element per line, `/` unescaped,
/// integers without a fraction, and a final newline. What `mock-server openapi` prints,
/// so a committed document diffs line by line.
enum PrettyJSON {
    static func text(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: "", to: &out)
        return out + "\n"
    }

    static func write(_ value: JSONValue, indent: String, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let number): out += value.intValue.map(String.init) ?? "\(number)"
        case .string(let text): quote(text, to: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += indent + "  "
                write(item, indent: indent + "  ", to: &out)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{\n"
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, (key, member)) in sorted.enumerated() {
                out += indent + "  "
                quote(key, to: &out)
                out += ": "
                write(member, indent: indent + "  ", to: &out)
                out += index == sorted.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        }
    }

    static func quote(_ text: String, to out: inout String) {
        out += "\""
        JSONCoding.appendEscaped(text, to: &out)
        out += "\""
    }
}
