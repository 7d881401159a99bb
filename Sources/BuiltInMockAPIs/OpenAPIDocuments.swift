import Foundation
import MockCore

/// OpenAPI 3.1 documents of both APIs, one per variant, written from the reference facts
/// (Fixtures/README.md) and the same variant properties the simulators answer from.
/// `strict` documents the validating answers (`--strict`) instead of the real servers'
/// leniency. Served at `GET /__admin/openapi/{restaurant|openmarket}?variant=…`.
public enum OpenAPIDocuments {
    /// The OpenAPI version the documents declare.
    public static let version = "3.1.0"

    // MARK: Building blocks

    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }
    static func type(_ name: String) -> JSONValue { ["type": .string(name)] }
    static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }

    /// An object with exactly these keys (`required`: all but `optional`), nothing else.
    static func object(_ properties: [String: JSONValue], optional: Set<String> = [], closed: Bool = true) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties),
                                           "required": .array(properties.keys.filter { !optional.contains($0) }.sorted().map(JSONValue.string))]
        if closed { schema["additionalProperties"] = false }
        return .object(schema)
    }

    static func json(_ schema: JSONValue) -> JSONValue { ["application/json": ["schema": schema]] }

    static func response(_ description: String, _ content: JSONValue? = nil, headers: JSONValue? = nil) -> JSONValue {
        var response: [String: JSONValue] = ["description": .string(description)]
        if let content { response["content"] = content }
        if let headers { response["headers"] = headers }
        return .object(response)
    }

    static func error(_ description: String) -> JSONValue { response(description, json(ref("Error"))) }

    static func parameter(_ name: String, in place: String, _ schema: JSONValue, required: Bool) -> JSONValue {
        ["name": .string(name), "in": .string(place), "required": .bool(required), "schema": schema]
    }

    /// The mock's error body: `{"error": true, "reason": "…"}`, sometimes with details.
    static let errorSchema = object(["error": type("boolean"), "reason": type("string")], closed: false)

    static let imageResponses: JSONValue = [
        "200": response("The image bytes, with ETag, Last-Modified and Cache-Control",
                        ["image/png": ["schema": ["type": "string", "contentMediaType": "image/png"]],
                         "image/jpeg": ["schema": ["type": "string", "contentMediaType": "image/jpeg"]]]),
        "304": response("Not modified (If-None-Match or If-Modified-Since still holds)"),
        "404": error("No such image"),
    ]

    static func document(title: String, variant: String, strict: Bool, paths: [String: JSONValue], schemas: [String: JSONValue]) -> JSONValue {
        var allSchemas = schemas
        allSchemas["Error"] = errorSchema
        return [
            "openapi": .string(version),
            "info": ["title": .string(title), "version": .string(variant + (strict ? "+strict" : "")),
                     "description": .string("Played by mock-server as the variant \(variant)\(strict ? " with --strict" : ""). Facts and their evidence: Fixtures/README.md.")],
            "servers": [["url": "http://127.0.0.1:8080"]],
            "paths": .object(paths),
            "components": ["schemas": .object(allSchemas)],
        ]
    }

    /// A date string in a variant's format (Korea time, no zone).
    static func date(_ pattern: String) -> JSONValue { ["type": "string", "pattern": .string(pattern)] }

    // MARK: Restaurant

    /// `menuIDs`: the menu's ids, which a validating order accepts (any integer without them).
    public static func restaurant(_ variant: RestaurantVariant, strict: Bool = false, menuIDs: [Int]? = nil) -> JSONValue {
        let lenient = variant == .community && !strict
        // Ids beyond what a 64-bit integer decodes exactly are refused by every server.
        var menuID: JSONValue = ["type": "integer", "format": "int64", "minimum": -8_999_999_999_999_999, "maximum": 8_999_999_999_999_999]
        if let menuIDs, !lenient { menuID = ["type": "integer", "enum": .array(menuIDs.sorted().map { .number(Double($0)) })] }
        var order: [String: JSONValue] = ["type": "array", "items": menuID]
        if !lenient { order["minItems"] = 1 }
        let categoryObject = object(["id": type("integer"), "name": type("string")])
        var item: [String: JSONValue] = [
            "id": type("integer"), "name": type("string"), "description": type("string"), "price": type("number"),
            "category": variant == .community ? ref("Category") : type("string"),
            "image_url": variant == .community ? ["type": "string", "pattern": "^/images/"] : ["type": "string", "format": "uri"],
        ]
        if variant == .vapor8090 { item["estimated_prep_time"] = type("integer") }
        var schemas: [String: JSONValue] = [
            "MenuItem": object(item),
            "Categories": object(["categories": array(variant == .community ? ref("Category") : type("string"))]),
            "Menu": object(["items": array(ref("MenuItem"))]),
            "Order": object(["menuIds": .object(order)], closed: false),
            "PreparationTime": object(["preparation_time": type("integer")]),
        ]
        if variant == .community { schemas["Category"] = categoryObject }
        var orderResponses: [String: JSONValue] = [
            "200": response("Minutes until the order is ready", json(ref("PreparationTime"))),
            "400": error(strict || variant != .community ? "A body that is not {\"menuIds\": [Int]}, or (strict or not community) an empty list or unknown id"
                                                         : "A body that is not a JSON object, or ids that are not integers"),
        ]
        if variant == .community && !strict { orderResponses["404"] = error("No menuIds key (the community server's route)") }
        let paths: [String: JSONValue] = [
            "/categories": ["get": ["operationId": "getCategories", "responses": ["200": response("The category names", json(ref("Categories")))]]],
            "/menu": ["get": [
                "operationId": "getMenu",
                "parameters": [parameter("category", in: "query", type("string"), required: false)],
                "responses": ["200": response("The items of the category (every item without one; none for an unknown one)", json(ref("Menu")))],
            ]],
            "/order": ["post": [
                "operationId": "submitOrder",
                "requestBody": ["required": true, "content": json(ref("Order"))],
                "responses": .object(orderResponses),
            ]],
            "/images/{file}": ["get": [
                "operationId": "getImage",
                "parameters": [parameter("file", in: "path", type("string"), required: true)],
                "responses": imageResponses,
            ]],
        ]
        return document(title: "Restaurant (OrderApp)", variant: variant.rawValue, strict: strict, paths: paths, schemas: schemas)
    }

    // MARK: Open Market

    /// The Open Market document of `variant`; `strict` documents the validating answers (`--strict`).
    public static func openMarket(_ variant: OpenMarketVariant, strict: Bool = false) -> JSONValue {
        let datePattern: String
        switch variant {
        case .jan2022: datePattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{2}$"#
        case .legacyDates: datePattern = #"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$"#
        case .late2022: datePattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$"#
        }
        let money = type("number")
        var listItem: [String: JSONValue] = [
            "id": type("integer"), "vendor_id": type("integer"), "name": type("string"), "thumbnail": ["type": "string", "format": "uri"],
            "currency": ref("Currency"), "price": money, "bargain_price": money, "discounted_price": money,
            "stock": type("integer"), "created_at": date(datePattern), "issued_at": date(datePattern),
        ]
        var listOptional: Set<String> = []
        if variant.listItemsCarryDescription {
            listItem["description"] = type("string")
            listItem["vendorName"] = type("string")
            listOptional.insert("vendorName")
        }
        var detail = listItem
        detail["description"] = type("string")
        detail["images"] = array(ref("Image"))
        detail["vendors"] = ref("Vendor")
        var image: [String: JSONValue] = ["id": type("integer"), "url": ["type": "string", "format": "uri"],
                                          "thumbnail_url": ["type": "string", "format": "uri"], "issued_at": date(datePattern)]
        var vendor: [String: JSONValue] = ["id": type("integer"), "name": type("string")]
        if variant != .late2022 {
            image["succeed"] = type("boolean")
            vendor["created_at"] = date(datePattern)
            vendor["issued_at"] = date(datePattern)
        }
        let keys = variant.pageKeys
        let page = object([keys.pageNo: type("integer"), keys.itemsPerPage: type("integer"), keys.totalCount: type("integer"),
                           keys.offset: type("integer"), keys.limit: type("integer"), keys.lastPage: type("integer"),
                           keys.hasNext: type("boolean"), keys.hasPrev: type("boolean"), keys.pages: array(ref("ProductListItem"))])
        let description = variant.descriptionKey
        // One currency set for answers and requests: a create or update with another is refused (400).
        let params = object(["name": type("string"), description: type("string"), "price": type("number"), "currency": ref("Currency"),
                             "discounted_price": type("number"), "stock": type("integer"), "secret": type("string")],
                            optional: ["discounted_price", "stock"])
        let changes = object(["name": type("string"), description: type("string"), "price": type("number"), "currency": ref("Currency"),
                              "discounted_price": type("number"), "stock": type("integer"), "thumbnail_id": type("integer"), "secret": type("string")],
                             optional: ["name", description, "price", "currency", "discounted_price", "stock", "thumbnail_id"])
        let schemas: [String: JSONValue] = [
            "ProductListItem": object(listItem, optional: listOptional),
            "ProductDetail": object(detail, optional: variant.listItemsCarryDescription ? ["vendorName", "vendors"] : ["vendors"]),
            "Image": object(image), "Vendor": object(vendor), "Page": page,
            "Params": params, "Changes": changes, "SecretRequest": object(["secret": type("string")]),
            "Currency": ["type": "string", "enum": .array(OpenMarketFixtures.currencies.sorted().map(JSONValue.string))],
        ]
        let identifier = parameter("identifier", in: "header", ["type": "string", "format": "uuid"], required: true)
        let id = parameter("id", in: "path", type("integer"), required: true)
        var pageResponses: [String: JSONValue] = [
            "200": response("A page of products, newest first", json(ref("Page"))),
            "204": response("Past the last page: no body, no more items"),
            "400": error(strict ? "A page_no or items_per_page that is missing, not a whole number or out of range"
                                : "A page_no or items_per_page that is missing or not a whole number, or items_per_page out of range"),
        ]
        if !strict { pageResponses["500"] = error("A page_no below 1: the training server failed") }
        let detailResponse = response("The product", json(ref("ProductDetail")))
        var paths: [String: JSONValue] = [
            "/healthChecker": ["get": ["operationId": "healthCheck", "responses": ["200": response("The JSON string \"OK\"", json(["const": "OK"]))]]],
            "/api/products": [
                "get": [
                    "operationId": "getProducts",
                    "parameters": [parameter("page_no", in: "query", ["type": "integer", "minimum": 1, "maximum": 1_000_000], required: true),
                                   parameter("items_per_page", in: "query", ["type": "integer", "minimum": 1, "maximum": 1000], required: true)],
                    "responses": .object(pageResponses),
                ],
                "post": [
                    "operationId": "createProduct",
                    "parameters": [identifier],
                    "requestBody": ["required": true, "content": ["multipart/form-data": [
                        "schema": object(["params": ref("Params"), "images": ["type": "array", "minItems": 1, "maxItems": 5,
                                                                              "items": ["type": "string", "contentMediaType": "image/png"]]]),
                        "encoding": ["params": ["contentType": "application/json"], "images": ["contentType": "image/png, image/jpeg"]],
                    ]]],
                    "responses": ["201": response("The created product", json(ref("ProductDetail"))), "400": error("Bad params or images"),
                                  "401": error("A missing or unknown identifier"), "413": error("An image over 300 KB")],
                ],
            ],
            "/api/products/{id}": [
                "get": ["operationId": "getProduct", "parameters": [id], "responses": ["200": detailResponse, "404": error("No such product")]],
                "patch": [
                    "operationId": "updateProduct", "parameters": [id, identifier],
                    "requestBody": ["required": true, "content": json(ref("Changes"))],
                    "responses": ["200": detailResponse, "400": error("Bad changes"), "401": error("A missing or unknown identifier, or a wrong secret"),
                                  "403": error("Another vendor's product"), "404": error("No such product")],
                ],
            ],
            "/market-images/{kind}/{file}": ["get": [
                "operationId": "getMarketImage",
                "parameters": [parameter("kind", in: "path", ["type": "string", "enum": ["origin", "thumb"]], required: true),
                               parameter("file", in: "path", type("string"), required: true)],
                "responses": imageResponses,
            ]],
        ]
        let lookup: JSONValue = [
            "parameters": [id, identifier],
            "requestBody": ["required": true, "content": json(ref("SecretRequest"))],
            "responses": ["200": response(variant == .late2022 ? "The URI that deletes the product" : "The product secret",
                                          ["text/plain": ["schema": type("string")]]),
                          "400": error("No secret in the body"), "401": error("A missing or unknown identifier, or not the vendor's password"),
                          "403": error("Another vendor's product"), "404": error("No such product")],
        ]
        let deletion: JSONValue = [
            "responses": ["200": response("The deleted product", json(ref("ProductDetail"))),
                          "401": error("A missing or unknown identifier, or a wrong secret"), "403": error("Another vendor's product"),
                          "404": error("No such product")],
        ]
        switch variant {
        case .jan2022, .legacyDates:
            paths["/api/products/{id}/secret"] = ["post": merged(lookup, ["operationId": "getProductSecret"])]
            paths["/api/products/{id}/{secret}"] = ["delete": merged(deletion, [
                "operationId": "deleteProduct",
                "parameters": [id, parameter("secret", in: "path", type("string"), required: true), identifier]])]
        case .late2022:
            paths["/api/products/{id}/archived"] = ["post": merged(lookup, ["operationId": "getDeleteURI"])]
            // `DELETE /api/products/{uri}`: the same path template as the detail (OpenAPI
            // allows one), its segment the delete URI that /archived answered.
            var item = paths["/api/products/{id}"]?.objectValue ?? [:]
            item["delete"] = merged(deletion, [
                "operationId": "deleteProductByURI",
                "parameters": [parameter("id", in: "path", ["type": "string", "description": "the delete URI that /archived answered"], required: true),
                               identifier]])
            paths["/api/products/{id}"] = .object(item)
        }
        return document(title: "Open Market (training server)", variant: variant.rawValue, strict: strict, paths: paths, schemas: schemas)
    }

    static func merged(_ a: JSONValue, _ b: JSONValue) -> JSONValue {
        .object((a.objectValue ?? [:]).merging(b.objectValue ?? [:]) { _, new in new })
    }
}
