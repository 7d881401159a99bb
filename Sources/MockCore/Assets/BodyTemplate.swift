import Foundation

/// A pre-encoded body with holes for the base URL the client used, so absolute URLs
/// follow the real host and port without re-encoding JSON per request.
package struct BodyTemplate: Sendable, Hashable {
    /// Written where the base URL goes when encoding; split out afterwards.
    public static let baseURLMarker = "@@MOCKSERVER_BASE_URL@@"
    /// How scenario files and recordings write the hole: `{{baseURL}}`.
    public static let fileMarker = "{{baseURL}}"

    enum Part: Sendable, Hashable {
        case bytes(Data)
        case baseURL
    }

    let parts: [Part]
    let hasHoles: Bool
    /// The last rendering: a client keeps using one address, so rendering happens once
    /// per address, not once per response.
    private let cache = RenderCache()

    /// Encodes `value` as JSON; strings holding `baseURLMarker` become holes for the base URL.
    public init<T: Encodable>(encoding value: T) {
        self.init(data: JSONCoding.encode(value))
    }

    /// A body written with `{{baseURL}}` holes (a scenario's `"templated": true` body).
    public init(fileText data: Data) {
        self.init(data: data, marker: BodyTemplate.fileMarker)
    }

    /// A body whose `baseURLMarker`s are holes for the base URL.
    public init(data: Data) {
        self.init(data: data, marker: BodyTemplate.baseURLMarker)
    }

    private init(data: Data, marker: String) {
        let marker = Data(marker.utf8)
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

    /// Equal when the bytes and the holes are in the same places.
    public static func == (lhs: BodyTemplate, rhs: BodyTemplate) -> Bool { lhs.parts == rhs.parts }
    /// Hashes the bytes and the holes' places.
    public func hash(into hasher: inout Hasher) { hasher.combine(parts) }

    /// `baseURL` must already be safe inside a JSON string (the transport guarantees it).
    public func render(baseURL: String) -> Data {
        if !hasHoles, case .bytes(let data) = parts[0] { return data }
        if let hit = cache.lookup(baseURL) { return hit }
        let url = Data(baseURL.utf8)
        var out = Data()
        out.reserveCapacity(parts.reduce(0) { size, part in
            if case .bytes(let data) = part { return size + data.count }
            return size + url.count
        })
        for part in parts {
            switch part {
            case .bytes(let data): out.append(data)
            case .baseURL: out.append(url)
            }
        }
        cache.store(baseURL, out)
        return out
    }
}

/// One remembered rendering of a template, shared by copies of the template.
final class RenderCache: Sendable {
    private let last = Locked<(baseURL: String, data: Data)?>(nil)

    func lookup(_ baseURL: String) -> Data? {
        last.withLock { entry in entry?.baseURL == baseURL ? entry?.data : nil }
    }

    func store(_ baseURL: String, _ data: Data) {
        last.withLock { $0 = (baseURL, data) }
    }
}
