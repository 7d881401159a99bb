import Foundation
import MockCore

extension DocumentSimulator {
    /// The answer from the stored items for an operation of a collection: create, list,
    /// read, change or delete; nil when the operation is none of those or the request
    /// gives nothing to work with (the documented answer then serves).
    func stateAnswer(_ operation: DocumentOperation, base: String, _ request: MockRequest, _ prefer: Prefer) -> ResponsePlan? {
        var path = String(request.path.dropFirst(base.count))
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        // Below a deleted item (its notes, its favourite) nothing is there either.
        if let parent = deletedParent(of: path, operation) { return missing(operation, parent, request) }
        if let collection = document.collections.first(where: { $0.path == operation.path }) {
            switch operation.method {
            case "POST": return create(operation, collection, key: path, request, prefer)
            case "GET": return list(operation, collection, key: path, request, prefer)
            case "PUT", "PATCH":
                guard let fields = fields(of: request, operation, collection), let property = collection.idProperty,
                      let id = fields[property].map(DocumentAnswers.text) else { return nil }
                return change(operation, collection, key: path, id: id, request, prefer)
            default: return nil
            }
        }
        guard let collection = document.collections.first(where: { $0.itemPath == operation.path }),
              let slash = path.lastIndex(of: "/") else { return nil }
        let key = String(path[..<slash])
        let raw = String(path[path.index(after: slash)...])
        let id = raw.removingPercentEncoding ?? raw
        guard let item = store.item(id, in: key) else {
            // An id this server never made is the document's to answer (it cannot know the
            // ids a client has in mind), unless the operation documents a 404; a deleted
            // one is gone.
            guard store.wasDeleted(id, in: key) || operation.response(for: 404) != nil else {
                // Deleting it still means it is gone from now on.
                if operation.method == "DELETE" { store.markDeleted(id, in: key) }
                return nil
            }
            return missing(operation, id, request)
        }
        switch operation.method {
        case "GET": return answer(operation, request, prefer, item: item, collection: collection)
        case "PUT", "PATCH": return change(operation, collection, key: key, id: id, request, prefer)
        case "DELETE":
            _ = store.delete(id, in: key)
            return answer(operation, request, prefer, item: item, collection: collection)
        default: return nil
        }
    }

    /// The id of a deleted item whose path `path` lies below (`/posts/a/notes` below the
    /// deleted `/posts/a`), if any.
    private func deletedParent(of path: String, _ operation: DocumentOperation) -> String? {
        for collection in document.collections where operation.path.hasPrefix(collection.itemPath + "/") {
            let depth = collection.itemPath.split(separator: "/").count
            let segments = path.split(separator: "/")
            guard segments.count > depth else { continue }
            let key = "/" + segments.prefix(depth - 1).joined(separator: "/")
            let raw = String(segments[depth - 1])
            let id = raw.removingPercentEncoding ?? raw
            if store.item(id, in: key) == nil, store.wasDeleted(id, in: key) { return id }
        }
        return nil
    }

    /// The answer to a request for an item that is not there, with the status
    /// `MissingItem` chooses and the documented body of it.
    private func missing(_ operation: DocumentOperation, _ id: String, _ request: MockRequest) -> ResponsePlan {
        let reason = "no item \(id) here"
        guard let status = MissingItem.status(for: operation) else { return .error(404, reason) }
        var prefer = Prefer(request)
        prefer.code = status
        prefer.example = nil
        guard case .success(var chosen) = answers.choose(operation, prefer, request) else { return .error(status, reason) }
        if let schema = chosen.content?.schema, let body = chosen.body {
            chosen.body = Self.withReason(body, reason, schema: schema, validator: document.validator, fallback: body)
        }
        return answers.plan(chosen, request)
    }

    /// The item a request's body carries, its operation's envelope taken off; nil when the
    /// body is no JSON object of that shape.
    private func fields(of request: MockRequest, _ operation: DocumentOperation, _ collection: ResourceCollection) -> [String: JSONValue]? {
        guard let body = JSONValue(parsing: request.body) else { return nil }
        let envelope = Envelope.of(operation.requestSchema, validator: document.validator).envelope
        return envelope.unwrap(body, idProperty: collection.idProperty) ?? (envelope == .none ? nil : body.objectValue)
    }

    private func create(_ operation: DocumentOperation, _ collection: ResourceCollection, key: String, _ request: MockRequest, _ prefer: Prefer) -> ResponsePlan? {
        // A body that is no JSON object (a form, XML) still creates an item, of made values.
        let given = fields(of: request, operation, collection) ?? [:]
        let validator = document.validator
        let properties = collection.itemSchema.map { Schemas.properties($0, validator: validator) } ?? [:]
        var item: [String: JSONValue] = [:]
        for (name, value) in given where Self.keepsIntegers(value) {
            if let property = properties[name] {
                if validator.conforms(value, to: property) { item[name] = value }
            } else if properties.isEmpty {
                item[name] = value
            }
        }
        let id: JSONValue
        if let property = collection.idProperty, let sent = given[property], sent != .null, Self.keepsIntegers(sent),
           validator.conforms(sent, to: collection.idSchema) {
            id = sent
        } else {
            id = assignID(collection, key: key, item: item)
        }
        let text = DocumentAnswers.text(id)
        if let property = collection.idProperty { item[property] = id }
        // Other ids the server gives (an `id` beside a `slug`), then the required fields the
        // request left out: made, and kept.
        for name in [collection.parameter, "id", "uuid", "_id", "slug"] where item[name] == nil {
            guard let property = properties[name] else { continue }
            let resolved = validator.resolved(property)
            if SchemaValidator.typeNames(resolved["type"] ?? .null).contains("integer"), let number = Double(text) {
                item[name] = .number(number)
            } else {
                item[name] = answers.sample(resolved, stream: "item \(collection.itemPath) \(text) \(name)")
            }
        }
        if let schema = collection.itemSchema {
            for name in Schemas.required(schema, validator: validator).sorted() where item[name] == nil {
                guard let property = properties[name] else { continue }
                item[name] = answers.sample(property, stream: "item \(collection.itemPath) \(text) \(name)")
            }
        }
        store.put(.object(item), id: text, in: key)
        var plan = answer(operation, request, prefer, item: .object(item), collection: collection)
        if (200...299).contains(plan.status), plan.status == 201 || operation.documents(201) {
            plan.headers.set("Location", request.path.hasSuffix("/") ? request.path + text : request.path + "/" + text)
        }
        return plan
    }

    /// A new id for an item of `collection`: the next integer, a uuid drawn from the seed,
    /// or a slug of the item's title or name; valid for the id's schema.
    private func assignID(_ collection: ResourceCollection, key: String, item: [String: JSONValue]) -> JSONValue {
        let schema = collection.idSchema
        let isText = SchemaValidator.typeNames(schema["type"] ?? .null).contains("string")
        if isText, schema["format"] == nil, collection.idProperty == "slug" || collection.parameter.lowercased().contains("slug"),
           let title = (item["title"] ?? item["name"])?.stringValue {
            let base = Self.slug(title)
            var candidate = base
            var suffix = 2
            while store.item(candidate, in: key) != nil || store.wasDeleted(candidate, in: key) {
                candidate = "\(base)-\(suffix)"
                suffix += 1
            }
            if document.validator.conforms(.string(candidate), to: schema) { return .string(candidate) }
        }
        let next = store.nextID(in: key, schema: schema, seed: answers.seed)
        if document.validator.conforms(next, to: schema) { return next }
        return answers.sample(schema, stream: "id \(collection.itemPath) \(DocumentAnswers.text(next))")
    }

    /// `How to train your dragon!` as `how-to-train-your-dragon`.
    static func slug(_ title: String) -> String {
        var slug = ""
        for character in title.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                slug.append(character)
            } else if !slug.isEmpty && !slug.hasSuffix("-") {
                slug.append("-")
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug.isEmpty ? "item" : String(slug.prefix(64))
    }

    private func change(_ operation: DocumentOperation, _ collection: ResourceCollection, key: String, id: String, _ request: MockRequest, _ prefer: Prefer) -> ResponsePlan? {
        guard let given = fields(of: request, operation, collection), case .object(var item)? = store.item(id, in: key) else { return nil }
        let validator = document.validator
        let properties = collection.itemSchema.map { Schemas.properties($0, validator: validator) } ?? [:]
        for (name, value) in given where name != collection.idProperty && Self.keepsIntegers(value) {
            if let property = properties[name] {
                if validator.conforms(value, to: property) { item[name] = value }
            } else if properties.isEmpty {
                item[name] = value
            }
        }
        store.put(.object(item), id: id, in: key)
        return answer(operation, request, prefer, item: .object(item), collection: collection)
    }

    private func list(_ operation: DocumentOperation, _ collection: ResourceCollection, key: String, _ request: MockRequest, _ prefer: Prefer) -> ResponsePlan? {
        // Once anything was made in a collection of this path (another post's notes), a
        // collection of it holding nothing is empty, not the document's example.
        guard store.isKnown(key) || store.isKnown(matching: PathPattern(collection.path)),
              case .success(var chosen) = answers.choose(operation, prefer, request),
              let schema = chosen.content?.schema, chosen.content?.isJSON == true else { return nil }
        let all = store.items(in: key)
        let page = collection.paging.map { Array($0.page(all, request)) } ?? all
        guard let body = listBody(page, total: all.count, schema: schema, documented: chosen.body, collection: collection) else { return nil }
        chosen.body = body
        return answers.plan(chosen, request)
    }

    /// A list answer of `items` in `schema`'s shape: an array of its item shape, or the
    /// wrapper object with its array filled and its counts (`total`, `articlesCount`) set.
    private func listBody(_ items: [JSONValue], total: Int, schema: JSONValue, documented: JSONValue?, collection: ResourceCollection) -> JSONValue? {
        let validator = document.validator
        if let itemSchema = Schemas.items(schema, validator: validator) {
            return .array(items.map { shaped($0, as: itemSchema, collection: collection) })
        }
        let properties = Schemas.properties(schema, validator: validator)
        guard !properties.isEmpty else { return nil }
        var members = documented?.objectValue ?? [:]
        if let data = properties["data"], let resource = Schemas.items(data, validator: validator),
           Schemas.properties(resource, validator: validator)["attributes"] != nil {
            members["data"] = .array(items.map { resourceObject($0, schema: resource, collection: collection) })
        } else {
            let lists = properties.filter { Schemas.items($0.value, validator: validator) != nil }.sorted { $0.key < $1.key }
            // The array whose items have the item's id, else the only one.
            let chosen = lists.first { list in
                collection.idProperty.map { Schemas.properties(Schemas.items(list.value, validator: validator) ?? [:], validator: validator)[$0] != nil } ?? false
            } ?? (lists.count == 1 ? lists.first : nil)
            guard let (name, listSchema) = chosen, let itemSchema = Schemas.items(listSchema, validator: validator) else { return nil }
            members[name] = .array(items.map { shaped($0, as: itemSchema, collection: collection) })
        }
        setCounts(&members, properties: properties, total: total, depth: 0)
        return .object(members)
    }

    /// Sets the wrapper's counts to `total`: its own (`total`, `articlesCount`) and those of
    /// an object inside it (`meta.total`, `pagination.total_count`).
    private func setCounts(_ members: inout [String: JSONValue], properties: [String: JSONValue], total: Int, depth: Int) {
        let validator = document.validator
        for (name, property) in properties {
            let resolved = validator.resolved(property)
            let types = SchemaValidator.typeNames(resolved["type"] ?? .null)
            if Self.isCount(name), types.contains(where: { $0 == "integer" || $0 == "number" }),
               validator.conforms(.number(Double(total)), to: resolved) {
                members[name] = .number(Double(total))
            } else if depth == 0, case .object(var inner)? = members[name], Schemas.isObject(resolved, validator: validator) {
                setCounts(&inner, properties: Schemas.properties(resolved, validator: validator), total: total, depth: 1)
                members[name] = .object(inner)
            }
        }
    }

    /// Whether a wrapper's property counts the whole list (`total`, `count`, `articlesCount`, `total_items`).
    static func isCount(_ name: String) -> Bool {
        // Whole words only: `total`, `count`, `totalCount`, `total_items`, `itemCount`,
        // `item_count`, never `discount`, `account` or `totalPrice`.
        let words = name.replacingOccurrences(of: "([a-z0-9])([A-Z])", with: "$1_$2", options: .regularExpression)
            .lowercased().split(separator: "_").map(String.init)
        guard let first = words.first, let last = words.last else { return false }
        if words.count == 1 { return first == "total" || first == "count" }
        let counted = ["items", "results", "records", "elements", "entries", "rows"]
        return last == "count" || ((first == "total" || first == "num" || first == "number") && counted.contains(last))
    }

    /// The operation's documented answer with `item` in its body, wrapped and shaped as the
    /// answer's schema says.
    private func answer(_ operation: DocumentOperation, _ request: MockRequest, _ prefer: Prefer, item: JSONValue, collection: ResourceCollection) -> ResponsePlan {
        switch answers.choose(operation, prefer, request) {
        case .failure(let box): return box.plan
        case .success(var chosen):
            if let schema = chosen.content?.schema, chosen.content?.isJSON == true, chosen.status != 204 {
                chosen.body = wrapped(item, schema: schema, documented: chosen.body, collection: collection)
            }
            return answers.plan(chosen, request)
        }
    }

    /// `item` as a body of `schema`: in its envelope (the documented body's other members
    /// kept) and in its item's shape.
    private func wrapped(_ item: JSONValue, schema: JSONValue, documented: JSONValue?, collection: ResourceCollection) -> JSONValue {
        let validator = document.validator
        let (envelope, inner) = Envelope.of(schema, validator: validator)
        switch envelope {
        case .none:
            return shaped(item, as: schema, collection: collection)
        case .key(let name):
            var members = documented?.objectValue ?? [:]
            members[name] = shaped(item, as: inner ?? [:], collection: collection)
            return .object(members)
        case .jsonAPI:
            var members = documented?.objectValue ?? [:]
            let data = Schemas.properties(schema, validator: validator)["data"] ?? [:]
            members["data"] = resourceObject(item, schema: data, collection: collection, documented: members["data"])
            return .object(members)
        }
    }

    /// A JSON:API resource object of `item`: its id (as the schema types it), its `type`,
    /// and its other fields as `attributes`.
    private func resourceObject(_ item: JSONValue, schema: JSONValue, collection: ResourceCollection, documented: JSONValue? = nil) -> JSONValue {
        let validator = document.validator
        let properties = Schemas.properties(schema, validator: validator)
        var data = documented?.objectValue ?? [:]
        var fields = item.objectValue ?? [:]
        if let property = collection.idProperty, let id = fields.removeValue(forKey: property) {
            let idSchema = validator.resolved(properties["id"] ?? [:])
            data["id"] = SchemaValidator.typeNames(idSchema["type"] ?? .null).contains("string") ? .string(DocumentAnswers.text(id)) : id
        }
        let typeSchema = validator.resolved(properties["type"] ?? [:])
        if let type = typeSchema["const"] ?? typeSchema["enum"]?.arrayValue?.first {
            data["type"] = type
        } else if data["type"] == nil {
            data["type"] = .string(collection.path.split(separator: "/").last.map(String.init) ?? "items")
        }
        data["attributes"] = shaped(.object(fields), as: properties["attributes"] ?? [:], collection: collection)
        for name in Schemas.required(schema, validator: validator) where data[name] == nil {
            if let property = properties[name] { data[name] = answers.sample(property, stream: "resource \(collection.itemPath) \(name)") }
        }
        return .object(data)
    }

    /// `item` in the shape of `schema`: the properties the schema has (write-only ones
    /// left out) whose stored values are valid for it, and its required properties the
    /// item lacks made from the seed (the same each time for the same item).
    func shaped(_ item: JSONValue, as schema: JSONValue, collection: ResourceCollection) -> JSONValue {
        let validator = document.validator
        guard case .object(let fields) = item else { return item }
        let properties = Schemas.properties(schema, validator: validator)
        guard !properties.isEmpty else { return item }
        let required = Schemas.required(schema, validator: validator)
        let id = collection.idProperty.flatMap { fields[$0] }.map(DocumentAnswers.text) ?? ""
        var out: [String: JSONValue] = [:]
        for (name, property) in properties {
            let resolved = validator.resolved(property)
            if let value = fields[name], validator.conforms(value, to: resolved) {
                if resolved["writeOnly"] == .bool(true) && !required.contains(name) { continue }
                out[name] = value
            } else if required.contains(name) {
                out[name] = answers.sample(resolved, stream: "item \(collection.itemPath) \(id) \(name)")
            }
        }
        return .object(out)
    }

    /// Whether every integer in `value` is written back as one: the engine's JSON numbers
    /// are doubles, exact up to 2^53, and larger integers would come back as `1.2e+17`.
    static func keepsIntegers(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let number): return number.rounded() != number || abs(number) < 9.0e15
        case .array(let items): return items.allSatisfy(keepsIntegers)
        case .object(let members): return members.values.allSatisfy(keepsIntegers)
        default: return true
        }
    }
}
