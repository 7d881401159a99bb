import Foundation
import MockCore

/// The credentials an operation asks for (its `security`, else the document's), checked
/// for presence only: any bearer token, basic pair or API key is accepted. A request with
/// none of the alternatives gets 401, as the real server would answer it.
struct SecurityRequirements: Sendable {
    /// One way to authenticate: every scheme in it must be present.
    struct Credential: Sendable, Equatable {
        enum Place: Sendable, Equatable {
            case authorization(scheme: String?)
            case header(String)
            case query(String)
            case cookie(String)

            /// Where the credential goes, in a request's words.
            var described: String {
                switch self {
                case .authorization(let scheme): return "Authorization: \((scheme ?? "<scheme>").capitalized) …"
                case .header(let name): return "header \(name)"
                case .query(let name): return "query \(name)"
                case .cookie(let name): return "cookie \(name)"
                }
            }
        }
        let scheme: String
        let place: Place
    }

    /// The alternatives; empty when the operation is open.
    let alternatives: [[Credential]]

    init(operation: JSONValue, document: JSONValue, validator: SchemaValidator) {
        let schemes = document["components"]?["securitySchemes"]?.objectValue ?? [:]
        let requirements = (operation["security"] ?? document["security"])?.arrayValue ?? []
        var alternatives: [[Credential]] = []
        for requirement in requirements {
            let names = requirement.objectValue?.keys.sorted() ?? []
            if names.isEmpty { alternatives = []; break }   // `{}`: anonymous access is allowed
            var credentials: [Credential] = []
            for name in names {
                guard let scheme = schemes[name].map(validator.resolved) else { continue }
                switch scheme["type"]?.stringValue {
                case "http":
                    let kind = scheme["scheme"]?.stringValue?.lowercased()
                    credentials.append(Credential(scheme: name, place: .authorization(scheme: kind)))
                case "apiKey":
                    let key = scheme["name"]?.stringValue ?? name
                    switch scheme["in"]?.stringValue {
                    case "query": credentials.append(Credential(scheme: name, place: .query(key)))
                    case "cookie": credentials.append(Credential(scheme: name, place: .cookie(key)))
                    default: credentials.append(Credential(scheme: name, place: .header(key)))
                    }
                case "oauth2", "openIdConnect":
                    credentials.append(Credential(scheme: name, place: .authorization(scheme: "bearer")))
                default:
                    continue   // mutualTLS and unknown kinds are not checked
                }
            }
            if credentials.isEmpty { alternatives = []; break }
            alternatives.append(credentials)
        }
        self.alternatives = alternatives
    }

    /// Whether `request` carries every credential of at least one alternative.
    func isSatisfied(by request: MockRequest) -> Bool {
        guard !alternatives.isEmpty else { return true }
        return alternatives.contains { $0.allSatisfy { Self.carries(request, $0.place) } }
    }

    /// The alternatives for a 401's reason, each credential with where it goes:
    /// `token (Authorization: Bearer …) or key (query api_key)`, so a client sending a
    /// bearer token where the document asks for Basic sees why it is refused.
    var described: String {
        alternatives.map { $0.map { "\($0.scheme) (\($0.place.described))" }.joined(separator: " and ") }.joined(separator: " or ")
    }

    var challenge: String {
        for credential in alternatives.joined() {
            if case .authorization(let scheme) = credential.place { return (scheme ?? "bearer").capitalized }
        }
        return "ApiKey"
    }

    private static func carries(_ request: MockRequest, _ place: Credential.Place) -> Bool {
        switch place {
        case .authorization(let scheme):
            guard let value = request.headers["Authorization"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return false }
            guard let scheme else { return true }
            let given = value.split(separator: " ", maxSplits: 1)
            return given.count == 2 && given[0].lowercased() == scheme && !given[1].trimmingCharacters(in: .whitespaces).isEmpty
        case .header(let name):
            return !(request.headers[name] ?? "").isEmpty
        case .query(let name):
            return !(request.queryValue(name) ?? "").isEmpty
        case .cookie(let name):
            return request.headers.values("Cookie").contains { line in
                line.split(separator: ";").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + "=") }
            }
        }
    }
}
