import Foundation
@testable import OpenAPIDocumentAPI
import MockCore
import Testing

/// `--strict` answers requests that break the document with 400 or 422 naming the
/// problem; collections keep what is created in them.
@Suite struct StrictAndStateTests {
    @Test func strictAPostMissingARequiredFieldIsRefusedNamingIt() throws {
        let engine = try Documents.engine("petstore.yaml", strict: true)
        let (status, body, _) = engine.send("POST", "/api/pets", json: #"{"tag": "dog"}"#)
        // The operation documents 422 (and not 400).
        #expect(status == 422)
        #expect(body?["violations"]?.arrayValue?.contains { $0["pointer"] == "" || $0["reason"]?.stringValue?.contains("name") == true } == true
                || body?["message"]?.stringValue?.contains("name") == true, "\(String(describing: body))")
        let catalog = try Documents.engine("catalog.json", strict: true)
        let refused = catalog.send("POST", "/v2/products", json: #"{"name": "Lamp", "price": -1}"#)
        #expect(refused.status == 422)
        #expect(refused.body?["title"]?.stringValue?.contains("$.body.price") == true || refused.body?["detail"]?.stringValue?.contains("$.body.price") == true,
                "\(String(describing: refused.body))")
        let query = catalog.send("GET", "/v2/products?per_page=500")
        #expect(query.status == 400)
        #expect(query.body?["reason"]?.stringValue?.contains("$.query.per_page") == true, "\(String(describing: query.body))")
        #expect(catalog.send("GET", "/v2/products?per_page=5").status == 200)
    }

    @Test func leniencyFlagsTheViolationAndAnswers() throws {
        let engine = try Documents.engine("petstore.yaml")
        let (status, _, _) = engine.send("POST", "/api/pets", json: #"{"tag": "dog"}"#)
        #expect(status == 201)
        let entry = try #require(engine.journal.entries().last)
        #expect(entry.violations.contains { $0.description.contains("name") }, "\(entry.violations)")
    }

    @Test func aCreatedItemReadsBackChangesAndIsDeleted() throws {
        let engine = try Documents.engine("petstore.yaml")
        let created = engine.send("POST", "/api/pets", json: #"{"name": "Kit", "tag": "cat"}"#)
        #expect(created.status == 201)
        let id = try #require(created.body?["id"]?.intValue)
        #expect(created.body?["name"] == "Kit")
        #expect(created.plan.headers["Location"] == "/api/pets/\(id)")
        #expect(engine.send("GET", "/api/pets/\(id)").body == ["id": .number(Double(id)), "name": "Kit", "tag": "cat"])
        let changed = engine.send("PUT", "/api/pets/\(id)", json: #"{"name": "Kitty"}"#)
        #expect(changed.status == 200)
        #expect(changed.body?["name"] == "Kitty")
        #expect(engine.send("GET", "/api/pets/\(id)").body?["name"] == "Kitty")
        #expect(engine.send("GET", "/api/pets").body?.arrayValue?.count == 1)
        #expect(engine.send("DELETE", "/api/pets/\(id)").status == 204)
        let gone = engine.send("GET", "/api/pets/\(id)")
        #expect(gone.status == 404)
        #expect(gone.body?["code"] != nil, "the documented 404 body: \(String(describing: gone.body))")
        #expect(engine.send("GET", "/api/pets").body == [])
    }

    @Test func uuidIdsAndPagingFollowTheDocument() throws {
        let engine = try Documents.engine("catalog.json", seed: 5)
        var ids: [String] = []
        for index in 1...7 {
            let created = engine.send("POST", "/v2/products", json: #"{"name": "Item \#(index)", "price": \#(index)}"#)
            #expect(created.status == 201)
            ids.append(try #require(created.body?["productId"]?.stringValue))
        }
        #expect(ids.allSatisfy { UUID(uuidString: $0) != nil })
        #expect(Set(ids).count == 7)
        let page = engine.send("GET", "/v2/products?page=2&per_page=3").body
        #expect(page?["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Item 4", "Item 5", "Item 6"])
        #expect(page?["total"] == 7)
        #expect(engine.send("GET", "/v2/products?page=3&per_page=3").body?["items"]?.arrayValue?.count == 1)
        let patched = engine.send("PATCH", "/v2/products/\(ids[0])", json: #"{"price": 99.5}"#)
        #expect(patched.body?["price"] == 99.5)
        #expect(patched.body?["productId"]?.stringValue == ids[0])
        // The same seed draws the same ids.
        let again = try Documents.engine("catalog.json", seed: 5)
        #expect(again.send("POST", "/v2/products", json: #"{"name": "Item 1", "price": 1}"#).body?["productId"]?.stringValue == ids[0])
    }

    @Test func stateGoesThroughSnapshots() throws {
        let engine = try Documents.engine("petstore.yaml")
        _ = engine.send("POST", "/api/pets", json: #"{"name": "Kit"}"#)
        let snapshot = engine.snapshot()
        let fresh = try Documents.engine("petstore.yaml")
        #expect(fresh.send("GET", "/api/pets/1").status == 404)
        try fresh.restore(snapshot: snapshot)
        #expect(fresh.send("GET", "/api/pets/1").body?["name"] == "Kit")
        #expect(fresh.send("POST", "/api/pets", json: #"{"name": "Tom"}"#).body?["id"] == 2)
    }

    @Test func statelessKeepsNothing() throws {
        let engine = try Documents.engine("petstore.yaml", stateful: false)
        let created = engine.send("POST", "/api/pets", json: #"{"name": "Kit"}"#)
        #expect(created.body == ["id": 7, "name": "Kit", "tag": "cat"], "the document's example")
        #expect(engine.send("GET", "/api/pets/7").body == ["id": 1, "name": "Rex", "tag": "dog"])
    }
}
