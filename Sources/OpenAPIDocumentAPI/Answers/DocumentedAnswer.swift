import Foundation
import MockCore

/// One answer the document gives an operation, as a client can be made to meet it: the
/// status a request asks for with `Prefer: code=`, and the example it names with
/// `Prefer: example=`.
public struct DocumentedAnswer: Sendable, Hashable, CustomStringConvertible {
    /// The response as the document keys it: `200`, `4XX` or `default`.
    public let code: String
    /// The status the mock answers with: the code, a range's first (`4XX` is 400), and for
    /// `default` 500 beside documented successes (its usual meaning: any error), else 200.
    public let status: Int
    /// The name of an example of the response's body (`example` for a media type's single
    /// `example`); nil when it has none, and the body is then made from its schema.
    public let example: String?

    /// Makes an answer of the response keyed `code`, given with `status`, and the body example named `example` (nil: made from the schema).
    public init(code: String, status: Int, example: String? = nil) {
        self.code = code
        self.status = status
        self.example = example
    }

    /// A 2xx answer: a client decodes it as its result.
    public var isSuccess: Bool { (200...299).contains(status) }

    /// The `Prefer` header's value that makes the mock give this answer:
    /// `code=200, example=two`. An example's name that is not a token (a comma, a
    /// semicolon, a space, a quote in it) is sent as a quoted-string, escaped:
    /// `code=200, example="two, by name"`.
    public var prefer: String { example.map { "code=\(status), example=\(Prefer.word($0))" } ?? "code=\(status)" }

    /// `404`, `200 (example "none")`, `500 (default)`.
    public var description: String {
        var text = "\(status)"
        if code != String(status) { text += " (\(code))" }
        if let example { text += " (example \"\(example)\")" }
        return text
    }
}

extension DocumentOperation {
    /// Every answer the document gives: each documented 2xx, 4xx and 5xx response (a range
    /// by its first status, `default` as `DocumentedAnswer.status` says), once per named
    /// example of its body, successes first, then by status. Informational (1xx) and
    /// redirect (3xx) responses are left out: a client meets them only when it asks.
    public var answers: [DocumentedAnswer] {
        let hasSuccess = responses.contains { (200...299).contains($0.status) && $0.code != "default" }
        var seen = Set<Int>()
        var found: [DocumentedAnswer] = []
        for response in responses {
            let status: Int
            if response.code == "default" {
                guard hasSuccess else {
                    status = 200
                    guard seen.insert(status).inserted else { continue }
                    found += Self.answers(of: response, status: status)
                    continue
                }
                // `default` stands for the errors the document does not list.
                guard !documents(500), !responses.contains(where: { $0.code.uppercased() == "5XX" }) else { continue }
                status = 500
            } else {
                status = response.status
            }
            guard (200...299).contains(status) || (400...599).contains(status), seen.insert(status).inserted else { continue }
            found += Self.answers(of: response, status: status)
        }
        // Examples of one response keep their order (by name).
        return found.enumerated().sorted { ($0.element.isSuccess ? 0 : 1, $0.element.status, $0.offset) < ($1.element.isSuccess ? 0 : 1, $1.element.status, $1.offset) }
            .map(\.element)
    }

    /// One answer per named example of the response's JSON body (else its first body's),
    /// or one without an example.
    private static func answers(of response: DocumentResponse, status: Int) -> [DocumentedAnswer] {
        let content = response.contents.first(where: \.isJSON) ?? response.contents.first
        let names = content?.examples.map(\.name) ?? []
        guard !names.isEmpty else { return [DocumentedAnswer(code: response.code, status: status)] }
        return names.map { DocumentedAnswer(code: response.code, status: status, example: $0) }
    }

    /// The requests it answers under `base`, one of the document's `basePaths`.
    public func requestPattern(under base: String) -> RequestPattern {
        RequestPattern(method: method, path: base + DocumentSimulator.routeTemplate(path))
    }

    /// The name of the route that answers it in the API named `api`, as the journal's
    /// `ServeEvent.answeredBy` gives it: `API.NAME`.
    public func routeName(api: String) -> String { "\(api).\(name)" }
}
