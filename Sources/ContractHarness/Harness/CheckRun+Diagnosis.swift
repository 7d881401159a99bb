import Foundation
import MockCore

/// Turning a provider's error into what broke: the server's own answer (status and
/// reason), and for a decoding error the value the server sent where the decoder stopped.
extension CheckRun {
    /// Why a call threw, in the server's terms as well as the provider's.
    func explain(_ error: any Error) -> String {
        var text = "threw \(ContractViolation.describe(error))"
        guard let last = expectations.requests.last else { return text + " — the server saw no request" }
        if !(200..<300).contains(last.status) || last.fault != nil {
            text += " — the server answered \(last.request.method) \(last.request.asRequest.uri) with \(last.status)"
            if let reason = last.responseReason { text += " \(JSONValue.string(reason))" }
            if let fault = last.fault { text += " (\(fault.rawValue))" }
        } else if let detail = Self.decodingDetail(error, body: last.responseBody) {
            text += " — " + detail
        }
        return text
    }

    /// Where a decoder stopped and what the server sent there; for a body that is not
    /// JSON at all, the body itself.
    static func decodingDetail(_ error: any Error, body: Data?) -> String? {
        guard let body else { return nil }
        let json = JSONValue(parsing: body)
        guard let decoding = error as? DecodingError else {
            // JSONSerialization and hand-written parsers: show what they were given.
            let ns = error as NSError
            guard ns.domain == NSCocoaErrorDomain, ns.code == 3840 || ns.code == 4864 || ns.code == 4865 else { return nil }
            return "the body the server sent: \(ServeEvent.preview(body))"
        }
        let path: [any CodingKey]
        var wanted = ""
        switch decoding {
        case .typeMismatch(let type, let context): path = context.codingPath; wanted = " (decoded as \(type))"
        case .valueNotFound(let type, let context): path = context.codingPath; wanted = " (decoded as non-optional \(type))"
        case .keyNotFound(let key, let context):
            let parent = value(at: context.codingPath, in: json)
            let keys = parent?.objectValue.map { $0.keys.sorted().joined(separator: ", ") } ?? "?"
            return "the server's object at \(ContractViolation.jsonPath(context.codingPath)) has no key \"\(key.stringValue)\" (its keys: \(keys))"
        case .dataCorrupted(let context): path = context.codingPath
        @unknown default: return nil
        }
        guard let json else { return "the body is not JSON: \(ServeEvent.preview(body))" }
        guard !path.isEmpty else {
            // swift-corelibs-foundation reports a number that does not fit its type (a
            // fraction decoded as Int) as "not valid JSON", with no path: name the suspects.
            let fractions = fractionalNumbers(in: json, at: "")
            guard !fractions.isEmpty else { return "the body the server sent: \(ServeEvent.preview(body))" }
            let shown = fractions.prefix(4).map { "\($0.path) = \($0.value)" }.joined(separator: ", ")
            return "the body is valid JSON; Foundation says \"not valid JSON\" when a number does not fit the type it is decoded as "
                + "(a fraction into Int). The body's numbers with a fraction: \(shown)\(fractions.count > 4 ? ", …" : "")"
        }
        let sent = value(at: path, in: json).map { "\($0)" } ?? "nothing"
        return "at \(ContractViolation.jsonPath(path)) the server sent \(sent)\(wanted)"
    }

    /// Every number with a fraction in `json`, with its path, in document order (objects by key).
    static func fractionalNumbers(in json: JSONValue, at path: String) -> [(path: String, value: JSONValue)] {
        switch json {
        case .number(let number) where number.rounded() != number: return [(path, json)]
        case .array(let items): return items.enumerated().flatMap { fractionalNumbers(in: $0.element, at: "\(path)[\($0.offset)]") }
        case .object(let members):
            return members.sorted { $0.key < $1.key }.flatMap { fractionalNumbers(in: $0.value, at: path.isEmpty ? $0.key : "\(path).\($0.key)") }
        default: return []
        }
    }

    static func value(at path: [any CodingKey], in json: JSONValue?) -> JSONValue? {
        var current = json
        for key in path {
            if let index = key.intValue, let array = current?.arrayValue {
                current = array.indices.contains(index) ? array[index] : nil
            } else {
                current = current?[key.stringValue]
            }
        }
        return current
    }
}
