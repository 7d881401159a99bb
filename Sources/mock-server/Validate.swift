import ArgumentParser
import Foundation
import MockServerCLI
import Scenarios

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check scenario files and fixture folders; report every problem with file, JSON path and reason.",
        discussion: "A path may be a scenario file, a fixture folder (holding a folder per API: restaurant/, openmarket/), or a fixture file inside one. Exit status 0 when all are valid, 2 otherwise.")

    @Argument(help: ArgumentHelp("Files or folders to check.", valueName: "path"))
    var paths: [String]

    func run() throws {
        var problems: [FixtureProblem] = []
        for path in paths {
            let found = Self.check(URL(fileURLWithPath: path))
            if found.isEmpty { print("ok: \(path)") }
            problems += found
        }
        guard problems.isEmpty else { throw failForFixtures(FixtureError(problems)) }
    }

    /// The folders that hold an API's fixtures, named as the API.
    static let apiFolders = Set(BuiltInAPIs.all.map(\.name))

    static func check(_ url: URL) -> [FixtureProblem] {
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
