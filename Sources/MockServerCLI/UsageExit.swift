import ArgumentParser
import Foundation

/// Exit status 2 for every usage error, as `--help` and the README say.
///
/// ArgumentParser's own `main()` exits 64 (`EX_USAGE`) for a bad option, a bad value, a
/// failed `validate()` or an unknown subcommand. The documented contract of these commands
/// is 0 (clean stop or help), 1 (cannot listen) and 2 (bad arguments or files), so parsing
/// goes through here: help still prints and exits 0, errors print ArgumentParser's message
/// and usage and exit 2, and what a command throws while running keeps its own status.
public enum UsageExit {
    /// The exit status of a usage error.
    public static let status: Int32 = 2

    /// Parses `arguments` as `Root` and runs the chosen command.
    public static func main<Root: AsyncParsableCommand>(_ root: Root.Type, _ arguments: [String]) async -> Never {
        let command: any ParsableCommand
        do {
            command = try Root.parseAsRoot(arguments)
        } catch {
            exit(root, for: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch {
            Root.exit(withError: error)
        }
        Foundation.exit(0)
    }

    /// Help and version requests exit as ArgumentParser says; usage errors exit 2.
    public static func exit<Root: ParsableCommand>(_ root: Root.Type, for error: any Error) -> Never {
        let code = Root.exitCode(for: error)
        guard code == .validationFailure else { Root.exit(withError: error) }
        FileHandle.standardError.write(Data((Root.fullMessage(for: error) + "\n").utf8))
        Foundation.exit(status)
    }
}
