import ArgumentParser
import BuiltInMockAPIs
import Foundation
import MockCore
import MockServerCLI
import OpenAPIDocumentAPI

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check scenario files, fixture folders and OpenAPI documents; report every problem with file, JSON path and reason.",
        discussion: "A path may be a scenario file, a fixture folder (holding a folder per API: \(BuiltInAPIs.all.map { $0.name + "/" }.joined(separator: ", "))), a fixture file inside one, or an OpenAPI document for --api (a YAML file, or JSON with an \"openapi\" or \"swagger\" key). What the mock repairs, skips or does not serve of a document is printed as warnings, each with its file and JSON pointer; the document is refused only when nothing in it can be served. With --strict any such problem, and anything OpenAPIKit finds, refuses it: for the CI of the document itself. Exit status 0 when all are valid, 2 otherwise.")

    @Argument(help: ArgumentHelp("Files or folders to check.", valueName: "path"))
    var paths: [String]

    @Flag(help: "Refuse an OpenAPI document on any problem: a mistake the mock would repair, a part it would skip, or what OpenAPIKit's validation finds.")
    var strict = false

    func run() throws {
        var problems: [FixtureProblem] = []
        for path in paths {
            let found = Self.check(URL(fileURLWithPath: path), strict: strict)
            if found.isEmpty { print("ok: \(path)") }
            problems += found
        }
        guard problems.isEmpty else { throw failForFixtures(FixtureError(problems)) }
    }

    /// The folders that hold an API's fixtures, named as the API.
    static let apiFolders = Set(BuiltInAPIs.all.map(\.name))

    static func check(_ url: URL, strict: Bool = false) -> [FixtureProblem] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            return [FixtureProblem(file: url.path, reason: "no such file or folder")]
        }
        do {
            if isDirectory.boolValue {
                if Self.apiFolders.contains(url.lastPathComponent) {
                    _ = try FixtureSet.load(from: url.deletingLastPathComponent())
                } else if url.lastPathComponent == "scenarios" {
                    _ = try ScenarioFile.loadFolder(url)
                } else {
                    _ = try FixtureSet.load(from: url)
                }
                return []
            }
            if isOpenAPIDocument(url) {
                if strict { return OpenAPIDocumentAPI.strictProblems(url) }
                for note in try OpenAPIDocumentAPI.read(url).notes {
                    FileHandle.standardError.write(Data("warning: \(note.file): \(note.pointer.isEmpty ? "" : note.pointer + ": ")\(note.kind.label): \(note.message)\n".utf8))
                }
                return []
            }
            let folder = url.deletingLastPathComponent()
            if Self.apiFolders.contains(folder.lastPathComponent) {
                _ = try FixtureSet.load(from: folder.deletingLastPathComponent())
            } else {
                _ = try ScenarioFile.load(url)
            }
            return []
        } catch {
            return error.problems
        }
    }
}

/// Whether `url` is an OpenAPI document rather than a scenario or fixture file: YAML, or
/// JSON whose top level has `openapi` (or `swagger`, to be told it is not read).
private func isOpenAPIDocument(_ url: URL) -> Bool {
    let type = url.pathExtension.lowercased()
    if type == "yaml" || type == "yml" { return true }
    guard type == "json", let data = FileManager.default.contents(atPath: url.path), let value = JSONValue(parsing: data) else { return false }
    return value["openapi"] != nil || value["swagger"] != nil
}
