import Foundation

/// An XML request body read as the JSON value its OpenAPI schema describes, so it is
/// checked as a JSON body is: each property is the child element of its name (or
/// `xml.name`), or the attribute where `xml.attribute` says so; an array is its repeated
/// elements, inside a wrapper element where `xml.wrapped` says so; a scalar is its text,
/// read as the property's type. Elements the schema does not name are kept as text, so a
/// closed object (`additionalProperties: false`) refuses them.
///
/// The reader takes well-formed XML 1.0: elements, attributes, text, CDATA, comments,
/// processing instructions and the predefined and numeric character references; a
/// document type declaration is refused (no entity of its own is expanded). Names are
/// compared without their namespace prefix.
enum XMLBody {
    /// One element: its name without prefix, attributes, child elements and text.
    struct Element {
        var name: String
        var attributes: [String: String] = [:]
        var children: [Element] = []
        var text = ""
    }

    /// Why a body is not XML.
    struct Malformed: Error {
        let reason: String
    }

    /// Elements nested deeper than this are refused (a hostile body cannot exhaust the stack).
    static let maximumDepth = 128

    /// `data` as the value `schema` describes; a reason when it is no well-formed XML.
    static func value(_ data: Data, schema: JSONValue, validator: SchemaValidator) -> Result<JSONValue, Malformed> {
        do {
            let root = try parse(data)
            return .success(value(of: root, schema: schema, validator: validator, depth: 0))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Reading the schema

    private static func value(of element: Element, schema: JSONValue, validator: SchemaValidator, depth: Int) -> JSONValue {
        let schema = merged(schema, validator: validator)
        let types = SchemaValidator.typeNames(schema["type"] ?? .null)
        guard depth < maximumDepth else { return .string(element.text) }
        if types.contains("object") || (types.isEmpty && schema["properties"] != nil) {
            let properties = schema["properties"]?.objectValue ?? [:]
            var members: [String: JSONValue] = [:]
            var named = Set<String>()
            for (name, property) in properties {
                let resolved = merged(property, validator: validator)
                let xml = resolved["xml"]?.objectValue ?? [:]
                let tag = xml["name"]?.stringValue ?? name
                if xml["attribute"] == .bool(true) {
                    if let text = element.attributes[tag] ?? element.attributes.first(where: { localName($0.key) == tag })?.value {
                        members[name] = RequestConformance.typed(text, as: SchemaValidator.typeNames(resolved["type"] ?? .null))
                    }
                    continue
                }
                if let items = arrayItems(resolved, validator: validator) {
                    let itemTag = merged(items, validator: validator)["xml"]?["name"]?.stringValue ?? tag
                    let holder: [Element]
                    if xml["wrapped"] == .bool(true) {
                        guard let wrapper = element.children.first(where: { $0.name == tag }) else { continue }
                        named.insert(tag)
                        holder = wrapper.children.filter { $0.name == itemTag }
                    } else {
                        holder = element.children.filter { $0.name == itemTag }
                        guard !holder.isEmpty else { continue }
                        named.insert(itemTag)
                    }
                    members[name] = .array(holder.map { value(of: $0, schema: items, validator: validator, depth: depth + 1) })
                    continue
                }
                guard let child = element.children.first(where: { $0.name == tag }) else { continue }
                named.insert(tag)
                let found = element.children.filter { $0.name == tag }
                // A property given twice is an array where the schema has one value: refused as such.
                members[name] = found.count > 1
                    ? .array(found.map { value(of: $0, schema: property, validator: validator, depth: depth + 1) })
                    : value(of: child, schema: property, validator: validator, depth: depth + 1)
            }
            for child in element.children where !named.contains(child.name) && members[child.name] == nil {
                members[child.name] = .string(child.text)
            }
            return .object(members)
        }
        if let items = arrayItems(schema, validator: validator) {
            return .array(element.children.map { value(of: $0, schema: items, validator: validator, depth: depth + 1) })
        }
        guard element.children.isEmpty else { return .object([:]) }
        return RequestConformance.typed(element.text, as: types)
    }

    /// `schema` with its `$ref` followed and its `allOf` parts' properties and types merged.
    private static func merged(_ schema: JSONValue, validator: SchemaValidator) -> JSONValue {
        let resolved = validator.resolved(schema)
        guard case .object(var keywords) = resolved, let parts = keywords["allOf"]?.arrayValue else { return resolved }
        var properties = keywords["properties"]?.objectValue ?? [:]
        for part in parts {
            let inner = merged(part, validator: validator)
            properties.merge(inner["properties"]?.objectValue ?? [:]) { own, _ in own }
            if keywords["type"] == nil, let type = inner["type"] { keywords["type"] = type }
        }
        keywords["properties"] = .object(properties)
        return .object(keywords)
    }

    private static func localName(_ name: String) -> String {
        name.firstIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }

    // MARK: Reading XML

    static func parse(_ data: Data) throws(Malformed) -> Element {
        let bytes = [UInt8](data)
        var reader = Reader(bytes: bytes)
        return try reader.document()
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        func fail(_ reason: String) -> Malformed { Malformed(reason: "\(reason) at byte \(index)") }

        var atEnd: Bool { index >= bytes.count }

        func starts(with text: String) -> Bool {
            let utf8 = Array(text.utf8)
            return index + utf8.count <= bytes.count && Array(bytes[index..<index + utf8.count]) == utf8
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        /// Skips up to and past `end`; fails when it never comes.
        mutating func skip(past end: String) throws(Malformed) {
            let utf8 = Array(end.utf8)
            while index + utf8.count <= bytes.count {
                if Array(bytes[index..<index + utf8.count]) == utf8 { index += utf8.count; return }
                index += 1
            }
            throw fail("\"\(end)\" never comes")
        }

        /// Comments, processing instructions and white space between elements.
        mutating func skipMisc() throws(Malformed) {
            while true {
                skipSpace()
                if starts(with: "<!--") { try skip(past: "-->") } else if starts(with: "<?") { try skip(past: "?>") } else { return }
            }
        }

        mutating func document() throws(Malformed) -> Element {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
            try skipMisc()
            if starts(with: "<!DOCTYPE") { throw fail("a document type declaration is not read") }
            guard starts(with: "<") else { throw fail("no root element") }
            let root = try element(depth: 0)
            try skipMisc()
            guard atEnd else { throw fail("text after the root element") }
            return root
        }

        mutating func name() throws(Malformed) -> String {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "<")].contains(byte) { break }
                index += 1
            }
            guard index > start else { throw fail("a name is missing") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func element(depth: Int) throws(Malformed) -> Element {
            guard depth < XMLBody.maximumDepth else { throw fail("elements nest deeper than \(XMLBody.maximumDepth)") }
            index += 1   // <
            let qualified = try name()
            var element = Element(name: XMLBody.localName(qualified))
            while true {
                skipSpace()
                guard index < bytes.count else { throw fail("the tag <\(qualified)> is not closed") }
                if starts(with: "/>") { index += 2; return element }
                if bytes[index] == UInt8(ascii: ">") { index += 1; break }
                let attribute = try name()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw fail("the attribute \(attribute) has no value") }
                index += 1
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                    throw fail("the attribute \(attribute)'s value is not quoted")
                }
                let quote = bytes[index]
                index += 1
                let start = index
                while index < bytes.count, bytes[index] != quote {
                    if bytes[index] == UInt8(ascii: "<") { throw fail("\"<\" in an attribute value") }
                    index += 1
                }
                guard index < bytes.count else { throw fail("the attribute \(attribute)'s value is not closed") }
                let value = try unescaped(bytes[start..<index])
                index += 1
                if attribute != "xmlns" && !attribute.hasPrefix("xmlns:") {
                    guard element.attributes.updateValue(value, forKey: XMLBody.localName(attribute)) == nil else {
                        throw fail("the attribute \(attribute) is given twice")
                    }
                }
            }
            var text: [UInt8] = []
            while true {
                guard index < bytes.count else { throw fail("the element <\(qualified)> is not closed") }
                if starts(with: "</") {
                    index += 2
                    let closing = try name()
                    skipSpace()
                    guard closing == qualified, index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
                        throw fail("</\(closing)> closes <\(qualified)>")
                    }
                    index += 1
                    element.text = try unescaped(text[...]).trimmingCharacters(in: .whitespacesAndNewlines)
                    return element
                }
                if starts(with: "<!--") { try skip(past: "-->"); continue }
                if starts(with: "<?") { try skip(past: "?>"); continue }
                if starts(with: "<![CDATA[") {
                    index += 9
                    let start = index
                    try skip(past: "]]>")
                    // CDATA is text as it stands: escape it so unescaping gives it back.
                    let raw = String(decoding: bytes[start..<(index - 3)], as: UTF8.self)
                    text += Array(raw.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").utf8)
                    continue
                }
                if bytes[index] == UInt8(ascii: "<") {
                    element.children.append(try self.element(depth: depth + 1))
                    continue
                }
                text.append(bytes[index])
                index += 1
            }
        }

        /// Text with its character references replaced.
        func unescaped(_ raw: ArraySlice<UInt8>) throws(Malformed) -> String {
            let text = String(decoding: raw, as: UTF8.self)
            guard text.contains("&") else { return text }
            var out = ""
            var rest = Substring(text)
            while let amp = rest.firstIndex(of: "&") {
                out += rest[..<amp]
                guard let semicolon = rest[amp...].firstIndex(of: ";") else { throw fail("\"&\" without \";\"") }
                let entity = rest[rest.index(after: amp)..<semicolon]
                switch entity {
                case "lt": out += "<"
                case "gt": out += ">"
                case "amp": out += "&"
                case "quot": out += "\""
                case "apos": out += "'"
                default:
                    let number: UInt32?
                    if entity.hasPrefix("#x") { number = UInt32(entity.dropFirst(2), radix: 16) } else if entity.hasPrefix("#") { number = UInt32(entity.dropFirst()) } else { number = nil }
                    guard let number, let scalar = Unicode.Scalar(number) else { throw fail("the entity &\(entity); is not known") }
                    out.unicodeScalars.append(scalar)
                }
                rest = rest[rest.index(after: semicolon)...]
            }
            return out + rest
        }
    }

    /// The items schema of an array schema; nil when `schema` is not an array's.
    private static func arrayItems(_ schema: JSONValue, validator: SchemaValidator) -> JSONValue? {
        let resolved = validator.resolved(schema)
        let types = SchemaValidator.typeNames(resolved["type"] ?? .null)
        guard types.contains("array") || (types.isEmpty && resolved["items"] != nil) else { return nil }
        return resolved["items"] ?? [:]
    }
}
