import Foundation
import MockCore

/// A collection the document's paths describe: a path that takes POST (`/pets`) and an
/// item path one parameter below it (`/pets/{petId}`). Items created by POST are read,
/// changed and deleted at the item path and listed at the collection's.
///
/// Items are kept unwrapped, in the shape of the item the item path answers (its GET's
/// success body, else the POST's), with the envelope each operation's bodies have taken
/// off (`{"article": {…}}`, JSON:API's `data.attributes`) and put back on answering.
struct ResourceCollection: Sendable {
    /// The collection's path template (`/owners/{ownerId}/pets`).
    let path: String
    /// The item path's template (`/owners/{ownerId}/pets/{petId}`).
    let itemPath: String
    /// The item path's parameter (`petId`).
    let parameter: String
    /// The item's property holding its id (the path parameter's name, `id`, `uuid`, `_id`
    /// or `slug`, the first the item has), if any.
    let idProperty: String?
    /// The id's schema (integer ids count up, uuid ids are drawn from the seed, slugs are
    /// made from the item's title or name).
    let idSchema: JSONValue
    /// What an item looks like, unwrapped: the item GET's success body, else the POST's.
    let itemSchema: JSONValue?
    /// The list operation's paging parameters, when it has them.
    let paging: Paging?

    /// The collections in `operations`.
    static func infer(_ operations: [DocumentOperation], validator: SchemaValidator) -> [ResourceCollection] {
        var found: [ResourceCollection] = []
        let byPath = Dictionary(grouping: operations, by: \.path)
        for (path, collectionOperations) in byPath.sorted(by: { $0.key < $1.key }) {
            guard let create = collectionOperations.first(where: { $0.method == "POST" }) else { continue }
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            let items = byPath.filter { candidate, _ in
                guard candidate.hasPrefix(trimmed + "/{"), candidate.hasSuffix("}") else { return false }
                let last = candidate.dropFirst(trimmed.count + 1)
                return !last.dropFirst().dropLast().contains(where: { $0 == "/" || $0 == "{" || $0 == "}" })
            }
            guard let (itemPath, itemOperations) = items.sorted(by: { $0.key < $1.key }).first else { continue }
            let parameter = String(itemPath.dropFirst(trimmed.count + 2).dropLast())
            let read = itemOperations.first { $0.method == "GET" }
            let answered = (read.flatMap { successSchema($0) } ?? successSchema(create))
            let (envelope, itemSchema) = answered.map { Envelope.of($0, validator: validator) } ?? (.none, nil)
            let properties = itemSchema.map { Schemas.properties($0, validator: validator) } ?? [:]
            var idProperty = [parameter, "id", "uuid", "_id", "slug"].first { properties[$0] != nil }
            var idSchema = idProperty.flatMap { properties[$0].map(validator.resolved) } ?? ["type": "integer"]
            if envelope == .jsonAPI, idProperty == nil, let answered {
                // A JSON:API resource's id is `data.id`, beside its attributes: kept as the item's `id`.
                idProperty = "id"
                let data = Schemas.properties(answered, validator: validator)["data"] ?? [:]
                idSchema = Schemas.properties(data, validator: validator)["id"].map(validator.resolved) ?? ["type": "string"]
            }
            let list = collectionOperations.first { $0.method == "GET" }
            found.append(ResourceCollection(path: trimmed, itemPath: itemPath, parameter: parameter, idProperty: idProperty, idSchema: idSchema,
                                            itemSchema: itemSchema, paging: list.flatMap(Paging.init)))
        }
        return found
    }

    /// The JSON schema of an operation's main success answer.
    static func successSchema(_ operation: DocumentOperation) -> JSONValue? {
        guard let index = operation.primary else { return nil }
        return operation.responses[index].contents.first { $0.isJSON }?.schema
    }

    /// An object schema's properties, those of its `allOf` parts included.
    static func flattenedProperties(_ schema: JSONValue, validator: SchemaValidator) -> [String: JSONValue] {
        Schemas.properties(schema, validator: validator)
    }
}

/// What answers a request for an item that is not there (never made, or deleted): the
/// operation's documented 404, else its `4XX`, else its `default` (each with status 404),
/// else the first it documents of 410, 422 and 400, else its lowest other documented 4xx.
/// Nil when it documents none: the answer is then an undocumented 404, and the document's
/// notes name the operation.
enum MissingItem {
    static func status(for operation: DocumentOperation) -> Int? {
        if operation.response(for: 404) != nil { return 404 }
        for status in [410, 422, 400] where operation.documents(status) { return status }
        return operation.responses.compactMap { Int($0.code) }.filter { (400...499).contains($0) }.min()
    }
}

/// How a list operation pages: `limit` and `offset`, or `page` and `per_page` (and their
/// usual spellings), as its query parameters name them.
struct Paging: Sendable {
    enum Style: Sendable {
        case offset(offset: String, limit: String?)
        case page(page: String, size: String?, first: Int)
        case limit(String)
    }

    let style: Style
    /// The page size when the request gives none (the parameter's default); nil: all.
    let defaultSize: Int?

    static let offsetNames = ["offset", "skip", "start"]
    static let limitNames = ["limit", "per_page", "perPage", "page_size", "pageSize", "size", "items_per_page", "itemsPerPage"]
    static let pageNames = ["page", "page_no", "pageNo", "page_number", "pageNumber"]

    init?(_ operation: DocumentOperation) {
        let names = operation.queryParameters
        let limit = Self.limitNames.first { names[$0] != nil }
        defaultSize = limit.flatMap { names[$0]?["default"]?.intValue }
        if let offset = Self.offsetNames.first(where: { names[$0] != nil }) {
            style = .offset(offset: offset, limit: limit)
        } else if let page = Self.pageNames.first(where: { names[$0] != nil }) {
            let first = names[page]?["minimum"]?.intValue == 0 ? 0 : 1
            style = .page(page: page, size: limit, first: first)
        } else if let limit {
            style = .limit(limit)
        } else {
            return nil
        }
    }

    /// The part of `items` the request asks for.
    func page<Item>(_ items: [Item], _ request: MockRequest) -> ArraySlice<Item> {
        func number(_ name: String?) -> Int? { name.flatMap { request.queryValue($0) }.flatMap { Int($0) } }
        switch style {
        case .offset(let offsetName, let limitName):
            let offset = max(0, number(offsetName) ?? 0)
            let size = max(0, number(limitName) ?? defaultSize ?? items.count)
            return Self.slice(items, from: offset, count: size)
        case .page(let pageName, let sizeName, let first):
            let size = max(1, number(sizeName) ?? defaultSize ?? max(items.count, 1))
            let index = max(0, (number(pageName) ?? first) - first)
            let (start, overflow) = index.multipliedReportingOverflow(by: size)
            return overflow ? [] : Self.slice(items, from: start, count: size)
        case .limit(let limitName):
            return Self.slice(items, from: 0, count: max(0, number(limitName) ?? defaultSize ?? items.count))
        }
    }

    private static func slice<Item>(_ items: [Item], from start: Int, count: Int) -> ArraySlice<Item> {
        guard start < items.count else { return [] }
        return items[start..<min(items.count, start + min(count, items.count))]
    }
}
