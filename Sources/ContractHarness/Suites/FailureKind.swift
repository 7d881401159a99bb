import Foundation
import MockCore

/// The ways a call can fail that a provider must surface as a thrown error.
public enum FailureKind: String, Sendable, CaseIterable {
    /// A 4xx status.
    case clientError = "4xx"
    /// A 5xx status.
    case serverError = "5xx"
    /// A body that is not JSON.
    case malformedJSON = "malformed JSON"
    /// JSON of another shape than the API's.
    case wrongShape = "wrong-shaped JSON"
    /// A body cut short of its `Content-Length`.
    case truncatedBody = "truncated body"
    /// The connection reset before an answer.
    case connectionReset = "connection reset"
    /// The connection closed with no byte of answer.
    case emptyResponse = "empty response"

    /// What applies to image downloads (their bytes are not JSON).
    public static let forImages: [FailureKind] = [.clientError, .serverError, .truncatedBody, .connectionReset, .emptyResponse]

    package func outcome(method: String) -> Outcome {
        switch self {
        case .clientError:
            let status = method == "GET" ? 404 : 400
            return .status(status, json: ["error": true, "reason": .string("contract check: a \(status)")])
        case .serverError: return .status(500, json: ["error": true, "reason": "contract check: a 500"])
        case .malformedJSON: return Outcome.simulator.transformed(.malformedJSON)
        case .wrongShape: return Outcome.simulator.transformed(.wrongShape)
        case .truncatedBody: return Outcome(fault: .truncatedBody)
        case .connectionReset: return .fault(.connectionReset)
        case .emptyResponse: return .fault(.emptyResponse)
        }
    }

    package var scenarioName: String { "failure-" + rawValue.replacingOccurrences(of: " ", with: "-") }

    /// One scenario per kind, each failing every request that matches `pattern`.
    package static func scenarios(for pattern: RequestPattern, kinds: [FailureKind]) -> [Scenario] {
        kinds.map { kind in
            Scenario(name: kind.scenarioName, rules: [Rule("fail", pattern, always: kind.outcome(method: pattern.method ?? "GET"))])
        }
    }
}
