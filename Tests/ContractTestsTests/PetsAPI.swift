import Foundation
import MockCore

/// A third API, as a user adds their own: this one file, and `apis: [PetsAPI()]` where a
/// server is made. Pets are listed, read and created; the ones created are its state.
struct PetsAPI: MockAPI {
    struct Pet: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    var name: String { "pets" }
    var variants: [String] { ["v1", "v2"] }
    var hosts: [String] { ["api.pets.example"] }

    /// The pets every server starts with, whatever the fixtures folder holds.
    func loadFixtures(from directory: URL) -> [Pet]? {
        [Pet(id: 1, name: "Rex"), Pet(id: 2, name: "Tom")]
    }

    func serve(_ pets: [Pet], _ context: APIContext) -> PetsSimulator {
        PetsSimulator(pets: Locked(pets), listKey: context.variant == "v2" ? "data" : "pets")
    }
}

struct PetsSimulator: ServedAPI {
    let pets: Locked<[PetsAPI.Pet]>
    /// v1 lists under `pets`, v2 under `data`.
    let listKey: String

    var routes: [Route] {
        [
            Route("pets.list", .get("/pets")) { _, _ in .json(200, JSONCoding.encode([listKey: pets.current])) },
            Route("pets.read", .get("/pets/{id}")) { _, match in
                guard let pet = pets.current.first(where: { String($0.id) == match["id"] }) else { return .error(404, "no such pet") }
                return .json(200, JSONCoding.encode(pet))
            },
            Route("pets.create", .post("/pets")) { request, _ in
                guard let name = JSONValue(parsing: request.body)?["name"]?.stringValue else { return .error(400, "a pet needs a name") }
                let pet = pets.withLock { pets in
                    let pet = PetsAPI.Pet(id: (pets.map(\.id).max() ?? 0) + 1, name: name)
                    pets.append(pet)
                    return pet
                }
                return .json(201, JSONCoding.encode(pet))
            },
        ]
    }

    var openAPI: OpenAPISource? {
        OpenAPISource { variant, _ in
            let pet: JSONValue = ["type": "object", "required": ["id", "name"],
                                  "properties": ["id": ["type": "integer"], "name": ["type": "string"]]]
            let json: (JSONValue) -> JSONValue = { ["application/json": ["schema": $0]] }
            return [
                "openapi": "3.1.0",
                "info": ["title": "Pets", "version": .string(variant)],
                "paths": [
                    "/pets": [
                        "get": ["operationId": "listPets",
                                "responses": ["200": ["description": "The pets", "content": json(["type": "object"])]]],
                        "post": ["operationId": "createPet",
                                 "requestBody": ["required": true, "content": json(["type": "object", "required": ["name"],
                                                                                   "properties": ["name": ["type": "string"]]])],
                                 "responses": ["201": ["description": "Created", "content": json(pet)]]],
                    ],
                    "/pets/{id}": [
                        "get": ["operationId": "readPet",
                                "parameters": [["name": "id", "in": "path", "required": true, "schema": ["type": "integer"]]],
                                "responses": ["200": ["description": "A pet", "content": json(pet)]]],
                    ],
                ],
            ]
        }
    }

    func snapshot() -> [PetsAPI.Pet] { pets.current }
    func restore(_ snapshot: [PetsAPI.Pet]) { pets.withLock { $0 = snapshot } }
}
