import ArgumentParser
import BuiltInMockAPIs
import Foundation
import MockCore
import MockServer
import MockServerCLI

/// `mock-server openapi`: the OpenAPI document a server with these options serves at
/// `/__admin/openapi/{api}`, printed with sorted keys and one value per line, so it can be
/// committed beside a generated client and diffed.
struct OpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Print the OpenAPI 3.1 document the mock serves for an API and variant (JSON, sorted keys).",
        discussion: """
            The same document as GET /__admin/openapi/{api} of a server started with the same \
            --fixtures, --variant and --strict. Variants of the other API are accepted and \
            ignored, so a serve command line's options can be copied. Exit status 2 for an \
            unknown API or variant, or a bad fixture folder.
            """)

    @Option(help: ArgumentHelp("The API whose document to print. One of: \(BuiltInAPIs.all.map(\.name).joined(separator: ", ")).",
                               valueName: "api"))
    var api: String

    @OptionGroup var fixtureOptions: FixtureOptions

    @Flag(help: "Document the validating answers of --strict instead of the real servers' leniency.")
    var strict = false

    func validate() throws {
        guard BuiltInAPIs.all.contains(where: { $0.name == api }) else {
            throw ValidationError("unknown API \"\(api)\"; choose from: \(BuiltInAPIs.all.map(\.name).joined(separator: ", "))")
        }
        do {
            _ = try VariantSelection.parse(fixtureOptions.variant)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let selection = try VariantSelection.parse(fixtureOptions.variant)
        let engine: MockEngine
        do {
            // Scenario files play no part in the documents: none is read.
            engine = try MockEngine(configuration: EngineConfiguration(
                fixturesDirectory: FixtureOptions.directory(fixtureOptions.fixtures),
                variants: selection.chosen,
                scenarioDirectories: [], strict: strict))
        } catch {
            throw failForFixtures(error)
        }
        // Through the admin route itself, so the document is the one a server serves.
        let plan = AdminAPI(engine: engine).respond(to: MockRequest(method: "GET", uri: "/__admin/openapi/\(api)"))
        guard plan.status == 200, let document = JSONValue(parsing: plan.body) else {
            FileHandle.standardError.write(Data("error: \(String(decoding: plan.body, as: UTF8.self))\n".utf8))
            throw ExitCode(2)
        }
        FileHandle.standardOutput.write(Data(PrettyJSON.text(document).utf8))
    }
}
