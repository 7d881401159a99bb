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
                "Fan": ["oneOf": [["$ref": "#/components/schemas/Fan"], ["$ref": "#/components/schemas/Fan"], ["type": "string"]]],
                "Node": [
                    "type": "object",
                    "properties": ["child": ["$ref": "#/components/schemas/Node"], "name": ["type": "string"]],
                ],
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

    /// A branch that leads back is a branch that does not match; a `$ref` or `allOf` that
    /// does is named.
    @Test(arguments: [("Loop", "leads back to itself"), ("Both", "leads back to itself"), ("Either", "matches none of the anyOf")])
    func aSchemaThatLeadsBackToItselfEndsWithAProblem(_ name: String, _ problem: String) {
        let schema: JSONValue = ["$ref": .string("#/components/schemas/\(name)")]
        #expect(!validator.conforms("anything", to: schema))
        #expect(validator.problems("anything", against: schema).contains { $0.contains(problem) })
    }

    /// Branches that lead back to their schema are cut where they loop, not explored to a
    /// depth: a schema of two such branches answers at once.
    @Test func branchesLeadingBackAreCutWhereTheyLoop() {
        let fan: JSONValue = ["$ref": "#/components/schemas/Fan"]
        #expect(validator.conforms("leaf", to: fan))
        #expect(!validator.conforms(7, to: fan))
    }

    /// A schema that names itself under a property is recursion through the value, which
    /// ends with the value: nested deep, it is checked all the way down.
    @Test func recursionThroughTheValueIsCheckedToTheBottom() {
        var value: JSONValue = ["name": 5]
        for _ in 0..<200 { value = ["child": value, "name": "n"] }
        let node: JSONValue = ["$ref": "#/components/schemas/Node"]
        let problems = validator.problems(value, against: node)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("$" + String(repeating: ".child", count: 200) + ".name: expected string") == true)
    }

    @Test func aPatternThatDoesNotCompileMatchesNothing() {
        #expect(!validator.conforms("abc", to: ["type": "string", "pattern": "(unclosed"]))
    }

    @Test func theRegexCacheKeepsAtMostItsLimit() {
        let cache = RegexCache(limit: 3)
        for index in 0..<10 {
            #expect(cache.regex("^a{\(index)}$") != nil)
            #expect(cache.count <= 3)
        }
        #expect(cache.regex("^a{9}$")?.firstMatch(in: "aaaaaaaaa", range: NSRange(location: 0, length: 9)) != nil)
    }

    @Test func aPatternThatDoesNotCompileIsKeptAsSuch() {
        let cache = RegexCache(limit: 8)
        #expect(cache.regex("(unclosed") == nil)
        #expect(cache.count == 1)
        #expect(cache.regex("(unclosed") == nil)
        #expect(cache.count == 1)
    }
}
