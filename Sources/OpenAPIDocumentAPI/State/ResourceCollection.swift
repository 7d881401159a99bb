import Foundation
import Scenarios

/// A collection the document's paths describe: a path that takes POST (`/pets`) and an
/// item path one parameter below it (`/pets/{petId}`). Items created by POST are read,
/// changed and deleted at the item path and listed at the collection's.
struct ResourceCollection: Sendable {
    /// The collection's path template (`/owners/{ownerId}/pets`).
    let path: String
    /// The item path's template (`/owners/{ownerId}/pets/{petId}`).
    let itemPath: String
    /// The item's property holding its id (`id`, or the path parameter's name), if any.
    let idProperty: String?
    /// The id's schema (integer ids count up, uuid ids are drawn from the seed).
    let idSchema: JSONValue
    /// What an item looks like: the item GET's success body, else the POST's.
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
            let itemSchema = (read.flatMap { successSchema($0) } ?? successSchema(create)).map(validator.resolved)
            let properties = itemSchema.map { flattenedProperties($0, validator: validator) } ?? [:]
            let idProperty = [parameter, "id", "uuid", "_id"].first { properties[$0] != nil }
            let idSchema = idProperty.flatMap { properties[$0].map(validator.resolved) }
                ?? ["type": "integer"]
            let list = collectionOperations.first { $0.method == "GET" }
            found.append(ResourceCollection(path: trimmed, itemPath: itemPath, idProperty: idProperty, idSchema: idSchema,
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
    static func flattenedProperties(_ schema: JSONValue, validator: SchemaValidator, depth: Int = 0) -> [String: JSONValue] {
        let schema = validator.resolved(schema)
        var properties = schema["properties"]?.objectValue ?? [:]
        guard depth < 16 else { return properties }
        for part in schema["allOf"]?.arrayValue ?? [] {
            properties.merge(flattenedProperties(part, validator: validator, depth: depth + 1)) { own, _ in own }
        }
        return properties
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
