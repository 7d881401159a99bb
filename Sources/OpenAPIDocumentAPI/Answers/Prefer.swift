import Foundation
import Scenarios

/// What a request's `Prefer` header asks of a document API, as Prism reads it:
/// `Prefer: code=404`, `Prefer: example=NAME`, `Prefer: dynamic=true`, or several of
/// them separated by commas or semicolons.
struct Prefer: Sendable, Equatable {
    var code: Int?
    var example: String?
    var dynamic = false

    init(_ request: MockRequest) {
        for value in request.headers.values("Prefer") {
            for part in value.split(whereSeparator: { $0 == "," || $0 == ";" }) {
                let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                let text = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                switch pair[0].lowercased() {
                case "code": code = Int(text)
                case "example": example = text
                case "dynamic": dynamic = text.lowercased() == "true"
                default: continue
                }
            }
        }
    }

    /// Whether the request names a response or an example (the stored state then stays out of it).
    var choosesAnswer: Bool { code != nil || example != nil }
}
