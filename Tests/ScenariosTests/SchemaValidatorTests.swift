import Foundation
@testable import MockCore
import Testing

/// `SchemaValidator`'s three answers agree: `problems` names every problem in key order,
/// `firstProblem` is its first, `conforms` is its emptiness; schemas whose references go
/// round in a circle end with a problem instead of recursing forever.
@Suite struct SchemaValidatorTests {
    static let document: JSONValue = [
        "components": [
            "schemas": [
                "Pet": [
                    "type": "object",
                    "required": ["id", "name"],
                    "properties": [
                        "id": ["type": "integer", "minimum": 1],
                        "name": ["type": "string", "pattern": "^[A-Z]"],
                        "tags": ["type": "array", "items": ["type": "string", "maxLength": 3]],
                        "born": ["type": "string", "format": "date"],
                    ],
                    "additionalProperties": false,
                ],
                "Loop": ["$ref": "#/components/schemas/Loop"],
                "Either": ["anyOf": [["$ref": "#/components/schemas/Either"]]],
                "Both": ["allOf": [["$ref": "#/components/schemas/Both"]]],
            ],
        ],
    ]
    let validator = SchemaValidator(document: Self.document)
    let pet: JSONValue = ["$ref": "#/components/schemas/Pet"]

    @Test func everyProblemIsNamedWithItsPathInKeyOrder() {
        let value: JSONValue = ["id": 0, "name": "rex", "tags": ["ok", "toolong"], "born": "yesterday", "owner": "me"]
        #expect(validator.problems(value, against: pet, at: "$.body") == [
            "$.body.born: \"yesterday\" is not a date",
            "$.body.id: 0 is below 1",
            "$.body.name: \"rex\" does not match ^[A-Z]",
            "$.body: the key \"owner\" is not in the document",
            "$.body.tags[1]: 7 characters, at most 3 expected",
        ])
        #expect(validator.firstProblem(value, against: pet, at: "$.body") == "$.body.born: \"yesterday\" is not a date")
        #expect(!validator.conforms(value, to: pet))
    }

    @Test func aConformingValueHasNoProblem() {
        let value: JSONValue = ["id": 3, "name": "Rex", "tags": ["a", "bcd"], "born": "2020-01-02"]
        #expect(validator.problems(value, against: pet).isEmpty)
        #expect(validator.firstProblem(value, against: pet) == nil)
        #expect(validator.conforms(value, to: pet))
    }

    @Test func aMissingRequiredKeyIsNamed() {
        #expect(validator.problems(["id": 2], against: pet) == ["$: the key \"name\" is missing"])
        #expect(!validator.conforms(["id": 2], to: pet))
    }

    @Test(arguments: ["Loop", "Either", "Both"])
    func aSchemaThatNamesItselfEndsWithAProblem(_ name: String) {
        let schema: JSONValue = ["$ref": .string("#/components/schemas/\(name)")]
        #expect(!validator.conforms("anything", to: schema))
        #expect(!validator.problems("anything", against: schema).isEmpty)
    }

    @Test func aPatternThatDoesNotCompileMatchesNothing() {
        #expect(!validator.conforms("abc", to: ["type": "string", "pattern": "(unclosed"]))
    }

    @Test func theRegexCacheKeepsAtMostItsLimit() {
        let cache = RegexCache(limit: 3)
        for index in 0..<10 { #expect(cache.regex("^a{\(index)}$") != nil) }
        #expect(cache.count == 3)
        #expect(cache.regex("^a{9}$")?.firstMatch(in: "aaaaaaaaa", range: NSRange(location: 0, length: 9)) != nil)
    }
}
