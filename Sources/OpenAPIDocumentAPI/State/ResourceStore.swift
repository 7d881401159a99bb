import Foundation
import MockCore

/// The items created in one engine, by collection (the request's collection path, so
/// `/owners/1/pets` and `/owners/2/pets` are two), in the order they were made.
final class ResourceStore: Sendable {
    /// At most this many items per collection and collections per store: past it the
    /// oldest go first.
    static let maximumItems = 10_000
    static let maximumCollections = 1_000

    struct Collection: Codable, Sendable, Equatable {
        var ids: [String] = []
        var items: [String: JSONValue] = [:]
        var deleted: [String] = []
        /// The last integer id given.
        var counter = 0
    }

    typealias Snapshot = DocumentAPIState

    private let state = Locked(Snapshot())

    func snapshot() -> Snapshot { state.current }
    func restore(_ snapshot: Snapshot) { state.withLock { $0 = snapshot } }

    /// Whether anything was ever created in `collection`.
    func isKnown(_ collection: String) -> Bool { state.current.collections[collection] != nil }

    /// Whether anything was ever created in a collection whose path `template` matches
    /// (`/posts/{slug}/notes` for `/posts/a/notes`).
    func isKnown(matching template: PathPattern) -> Bool {
        state.current.collections.keys.contains { template.match($0) != nil }
    }

    func items(in collection: String) -> [JSONValue] {
        let current = state.current.collections[collection]
        return current.map { found in found.ids.compactMap { found.items[$0] } } ?? []
    }

    func item(_ id: String, in collection: String) -> JSONValue? { state.current.collections[collection]?.items[id] }

    func wasDeleted(_ id: String, in collection: String) -> Bool {
        state.current.collections[collection]?.deleted.contains(id) ?? false
    }

    /// The next id for `collection`: the integer after the largest given, or a uuid drawn
    /// from a generator seeded with `seed`.
    func nextID(in collection: String, schema: JSONValue, seed: UInt64) -> JSONValue {
        state.withLock { state in
            let isText = SchemaValidator.typeNames(schema["type"] ?? .null).contains("string")
            if isText && schema["format"] == "uuid" {
                state.drawn += 1
                var random = SeededRandom(seed: seed &+ state.drawn, stream: "document-api.ids")
                return .string(SchemaSampler.uuid(using: &random))
            }
            var found = state.collections[collection] ?? Collection()
            found.counter += 1
            state.collections[collection] = found
            return isText ? .string(String(found.counter)) : .number(Double(found.counter))
        }
    }

    /// Keeps `item` as `id` in `collection` (replacing one of that id).
    func put(_ item: JSONValue, id: String, in collection: String) {
        state.withLock { state in
            if state.collections[collection] == nil {
                state.order.append(collection)
                if state.order.count > Self.maximumCollections { state.collections[state.order.removeFirst()] = nil }
            }
            var found = state.collections[collection] ?? Collection()
            if found.items[id] == nil { found.ids.append(id) }
            found.items[id] = item
            found.deleted.removeAll { $0 == id }
            if let number = Int(id) { found.counter = max(found.counter, number) }
            if found.ids.count > Self.maximumItems { found.items[found.ids.removeFirst()] = nil }
            state.collections[collection] = found
        }
    }

    /// Notes `id` as deleted in `collection` though it was never created here.
    func markDeleted(_ id: String, in collection: String) {
        state.withLock { state in
            if state.collections[collection] == nil {
                state.order.append(collection)
                if state.order.count > Self.maximumCollections { state.collections[state.order.removeFirst()] = nil }
            }
            var found = state.collections[collection] ?? Collection()
            if !found.deleted.contains(id) { found.deleted.append(id) }
            if found.deleted.count > Self.maximumItems { found.deleted.removeFirst() }
            state.collections[collection] = found
        }
    }

    /// Removes `id` from `collection`; whether it was there.
    func delete(_ id: String, in collection: String) -> Bool {
        state.withLock { state in
            guard var found = state.collections[collection], found.items.removeValue(forKey: id) != nil else { return false }
            found.ids.removeAll { $0 == id }
            found.deleted.append(id)
            if found.deleted.count > Self.maximumItems { found.deleted.removeFirst() }
            state.collections[collection] = found
            return true
        }
    }
}

/// What a document API's snapshot holds: the items created in each collection.
public struct DocumentAPIState: Codable, Sendable, Equatable {
    var collections: [String: ResourceStore.Collection] = [:]
    /// How many uuids were drawn (the next follows on from a restored state).
    var drawn: UInt64 = 0
    var order: [String] = []
}
