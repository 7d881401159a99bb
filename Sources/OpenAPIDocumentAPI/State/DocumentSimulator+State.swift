import Foundation
import Scenarios

extension DocumentSimulator {
    /// The answer from the stored items for an operation of a collection: create, list,
    /// read, change or delete; nil when the operation is none of those or the request
    /// gives nothing to work with (the documented answer then serves).
    func stateAnswer(_ operation: DocumentOperation, base: String, _ request: MockRequest, _ prefer: Prefer) -> ResponsePlan? {
        var path = String(request.path.dropFirst(base.count))
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        if let collection = document.collections.first(where: { $0.path == operation.path }) {
            switch operation.method {
            case "POST": return create(operation, collection, key: path, request, prefer)
            case "GET": return list(operation, collection, key: path, request, prefer)
            case "PUT", "PATCH":
                guard let body = JSONValue(parsing: request.body), let property = collection.idProperty,
                      let id = body[property].map(DocumentAnswers.text) else { return nil }
                return change(operation, collection, key: path, id: id, request, prefer)
            default: return nil
            }
        }
        guard let collection = document.collections.first(where: { $0.itemPath == operation.path }),
              let slash = path.lastIndex(of: "/") else { return nil }
        let key = String(path[..<slash])
        let raw = String(path[path.index(after: slash)...])
        let id = raw.removingPercentEncoding ?? raw
        if store.item(id, in: key) == nil {
            // An id this server never made: 404 where documented (always once deleted),
            // else the document's answer.
            guard store.wasDeleted(id, in: key) || operation.documents(404) else {
                // Deleting it still means it is gone from now on.
                if operation.method == "DELETE" { store.markDeleted(id, in: key) }
                return nil
            }
            return notFound(operation, id, request)
        }
        switch operation.method {
        case "GET": return documented(operation, request, prefer, item: store.item(id, in: key), collection: collection)
        case "PUT", "PATCH": return change(operation, collection, key: key, id: id, request, prefer)
        case "DELETE":
            _ = store.delete(id, in: key)
            return documented(operation, request, prefer, item: nil, collection: collection)
        default: return nil
        }
    }

    private func notFound(_ operation: DocumentOperation, _ id: String, _ request: MockRequest) -> ResponsePlan {
        var prefer = Prefer(request)
        prefer.code = 404
        guard operation.response(for: 404) != nil, case .success(var chosen) = answers.choose(operation, prefer, request) else {
            return .error(404, "no item \(id) here (deleted)")
        }
        if let schema = chosen.content?.schema, let body = chosen.body {
            chosen.body = Self.withReason(body, "no item \(id) here", schema: schema, validator: document.validator, fallback: body)
        }
        return answers.plan(chosen, request)
    }

    private func create(_ operation: DocumentOperation, _ collection: ResourceCollection, key: String, _ request: MockRequest, _ prefer: Prefer) -> ResponsePlan? {
        // A body that is no JSON object (a form, XML) still creates an item, of made values.
        var fields: [String: JSONValue] = [:]
        if case .object(let given)? = JSONValue(parsing: request.body) { fields = given }
        var item = collection.itemSchema.map { answers.value($0, key: "item \(collection.itemPath)") } ?? [:]
        item = overlay(item, with: .object(fields), schema: collection.itemSchema)
        let id: JSONValue
        if let property = collection.idProperty, let given = fields[property], given != .null,
           document.validator.problems(given, against: collection.idSchema).isEmpty, given.doubleValue.map({ abs($0) < 9.0e15 }) ?? true {
            id = given
        } else {
            id = store.nextID(in: key, schema: collection.idSchema, seed: answers.seed)
        }
        if let property = collection.idProperty, case .object(var members) = item {
            members[property] = id
            item = .object(members)
        }
        store.put(item, id: DocumentAnswers.text(id), in: key)
        var plan = documented(operation, request, prefer, item: item, collection: collection)
        if (200...299).contains(plan.status), plan.status == 201 || operation.documents(201) {
            plan.headers.set("Location", request.path.hasSuffix("/") ? request.path + DocumentAnswers.text(id) : request.path + "/" + DocumentAnswers.text(id))
        }
        return plan
    }

    private func change(_ operation: DocumentOperation, _ collection: ResourceCollection, key: String, id: String, _ request: MockRequest, _ prefer: Prefer) -> ResponsePlan? {
        guard case .object(let fields)? = JSONValue(parsing: request.body), var item = store.item(id, in: key) else { return nil }
        let kept = collection.idProperty.flatMap { item[$0] }
        item = overlay(item, with: .object(fields), schema: collection.itemSchema)
        if let property = collection.idProperty, let kept, case .object(var members) = item {
            members[property] = kept
            item = .object(members)
        }
        store.put(item, id: id, in: key)
        return documented(operation, request, prefer, item: item, collection: collection)
    }

    private func list(_ operation: DocumentOperation, _ collection: ResourceCollection, key: String, _ request: MockRequest, _ prefer: Prefer) -> ResponsePlan? {
        guard store.isKnown(key), case .success(var chosen) = answers.choose(operation, prefer, request) else { return nil }
        let all = store.items(in: key)
        let page = collection.paging.map { Array($0.page(all, request)) } ?? all
        let schema = chosen.content?.schema.map(document.validator.resolved)
        switch chosen.body {
        case .array?:
            chosen.body = .array(page)
        case nil where schema?["type"] == "array":
            chosen.body = .array(page)
        case .object(var members)?:
            let properties = schema.map { ResourceCollection.flattenedProperties($0, validator: document.validator) } ?? [:]
            guard let listName = properties.sorted(by: { $0.key < $1.key }).first(where: { document.validator.resolved($0.value)["type"] == "array" })?.key else { return nil }
            members[listName] = .array(page)
            for name in ["total", "count", "total_count", "totalCount", "totalItems", "total_items"] where properties[name] != nil && members[name]?.doubleValue != nil {
                members[name] = .number(Double(all.count))
            }
            chosen.body = .object(members)
        default:
            return nil
        }
        return answers.plan(chosen, request)
    }

    /// The operation's documented answer with `item`'s fields in its body.
    private func documented(_ operation: DocumentOperation, _ request: MockRequest, _ prefer: Prefer, item: JSONValue?, collection: ResourceCollection) -> ResponsePlan {
        switch answers.choose(operation, prefer, request) {
        case .failure(let box): return box.plan
        case .success(var chosen):
            if let item, let body = chosen.body {
                chosen.body = overlay(body, with: item, schema: chosen.content?.schema)
            }
            return answers.plan(chosen, request)
        }
    }

    /// `base` with `fields` set where `schema` has a property of that name the value fits
    /// (or, for a body wrapping one object, `{"data": {…}}`, inside that object).
    func overlay(_ base: JSONValue, with fields: JSONValue, schema: JSONValue?, depth: Int = 0) -> JSONValue {
        guard case .object(var members) = base, case .object(let given) = fields else { return base }
        let validator = document.validator
        let properties = schema.map { ResourceCollection.flattenedProperties($0, validator: validator) } ?? [:]
        let closed = schema.map(validator.resolved)?["additionalProperties"] == .bool(false)
        var placed = false
        for (name, value) in given where Self.keepsIntegers(value) {
            if let property = properties[name] {
                guard validator.problems(value, against: property).isEmpty else { continue }
                members[name] = value
                placed = true
            } else if !closed && properties.isEmpty {
                members[name] = value
                placed = true
            }
        }
        if !placed, depth < 2, properties.count == 1 || properties.count == 2, let (name, wrapped) = properties.first(where: { validator.resolved($0.value)["type"] == "object" || validator.resolved($0.value)["properties"] != nil }),
           let inner = members[name] {
            members[name] = overlay(inner, with: fields, schema: wrapped, depth: depth + 1)
        }
        return .object(members)
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
