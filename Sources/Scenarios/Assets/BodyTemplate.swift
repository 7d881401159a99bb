import Foundation

/// A pre-encoded body with holes for the base URL the client used, so absolute URLs
/// follow the real host and port without re-encoding JSON per request.
public struct BodyTemplate: Sendable, Hashable {
    /// Written where the base URL goes when encoding; split out afterwards.
    public static let baseURLMarker = "@@MOCKSERVER_BASE_URL@@"

    enum Part: Sendable, Hashable {
        case bytes(Data)
        case baseURL
    }

    let parts: [Part]
    let hasHoles: Bool

    /// How scenario files and recordings write the hole: `{{baseURL}}`.
    public static let fileMarker = "{{baseURL}}"

    /// A body written with `{{baseURL}}` holes (a scenario's `"templated": true` body).
    public init(fileText data: Data) {
        var rest = data[...]
        var marked = Data()
        let marker = Data(BodyTemplate.fileMarker.utf8)
        while let range = rest.range(of: marker) {
            marked.append(contentsOf: rest[..<range.lowerBound])
            marked.append(contentsOf: BodyTemplate.baseURLMarker.utf8)
            rest = rest[range.upperBound...]
        }
        marked.append(contentsOf: rest)
        self.init(data: marked)
    }

    public init<T: Encodable>(encoding value: T) {
        self.init(data: JSONCoding.encode(value))
    }

    public init(data: Data) {
        let marker = Data(BodyTemplate.baseURLMarker.utf8)
        var parts: [Part] = []
        var rest = data[...]
        while let range = rest.range(of: marker) {
            parts.append(.bytes(Data(rest[..<range.lowerBound])))
            parts.append(.baseURL)
            rest = rest[range.upperBound...]
        }
        parts.append(.bytes(Data(rest)))
        self.parts = parts
        self.hasHoles = parts.count > 1
    }

    /// `baseURL` must already be safe inside a JSON string (the transport guarantees it).
    public func render(baseURL: String) -> Data {
        if !hasHoles, case .bytes(let data) = parts[0] { return data }
        let url = Data(baseURL.utf8)
        var out = Data()
        for part in parts {
            switch part {
            case .bytes(let data): out.append(data)
            case .baseURL: out.append(url)
            }
        }
        return out
    }
}
