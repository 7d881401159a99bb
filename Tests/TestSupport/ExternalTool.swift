import Foundation

/// A program (or Python module) outside Swift that a test runs as a real client — curl,
/// openssl, nghttp — with how to install it on Linux and on macOS.
///
/// Whether it is there is probed once, when the value is made: the shared ones below are
/// static, so each is probed at most once per test process.
public struct ExternalTool: Sendable, Equatable, CustomStringConvertible {
    /// What the tool is called where it is missing (`nghttp (nghttp2)`, `hpack (Python)`).
    public let name: String
    /// How to install it on Linux (Debian and Ubuntu, as Swift's images are).
    public let linux: String
    /// How to install it on macOS; nil where macOS has no such tool or always has it.
    public let macOS: String?
    /// Whether the probe found it.
    public let isAvailable: Bool

    public init(name: String, linux: String, macOS: String?, isAvailable: Bool) {
        self.name = name
        self.linux = linux
        self.macOS = macOS
        self.isAvailable = isAvailable
    }

    /// The one line a missing tool is reported with: the tool and how to install it.
    public var missingLine: String {
        let install = macOS.map { "\(linux) (Linux) or \($0) (macOS)" } ?? "\(linux) (Linux)"
        return "\(name) is not installed; install it with \(install)"
    }

    public var description: String { name }

    /// A command found on the `PATH`, as `Tool.run` (through `/usr/bin/env`) finds it.
    public static func command(_ command: String, name: String? = nil, linux: String, macOS: String?) -> ExternalTool {
        ExternalTool(name: name ?? command, linux: linux, macOS: macOS, isAvailable: path(of: command) != nil)
    }

    /// A module that `python3` (the one on the `PATH`) can import.
    public static func pythonModule(_ module: String, linux: String, macOS: String) -> ExternalTool {
        ExternalTool(name: "\(module) (Python)", linux: linux, macOS: macOS, isAvailable: pythonImports(module))
    }

    /// Where `command` is on the `PATH`, or nil.
    public static func path(of command: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return folders.lazy.map { "\($0)/\(command)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether the environment says this is a CI run (`CI=true`, as GitHub Actions and
    /// `.ci/run`'s runner set it): there a missing tool fails its tests instead of skipping them.
    public static var isCI: Bool {
        ["true", "1"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
    }

    private static func pythonImports(_ module: String) -> Bool {
        guard let python = path(of: "python3") else { return false }
        guard let child = try? ChildProcess(python, ["-c", "import \(module)"], output: .null, error: .null) else { return false }
        return child.wait() == 0
    }
}

extension ExternalTool {
    public static let curl = command("curl", linux: "apt-get install curl", macOS: "brew install curl")
    public static let openssl = command("openssl", linux: "apt-get install openssl", macOS: "brew install openssl")
    public static let nghttp = command("nghttp", name: "nghttp (nghttp2)", linux: "apt-get install nghttp2-client", macOS: "brew install nghttp2")
    public static let hostname = command("hostname", linux: "apt-get install hostname", macOS: nil)
    public static let python3 = command("python3", linux: "apt-get install python3", macOS: "brew install python")
    /// The Swift interpreter, for a client run as a script (`swift file.swift`).
    public static let swift = command("swift", linux: "install Swift from https://swift.org/install", macOS: "xcode-select --install")
    /// The HPACK encoder the raw HTTP/2 client (`Tests/Clients/h2_graceful_stop.py`) uses.
    public static let hpack = pythonModule("hpack", linux: "python3 -m pip install hpack, or apt-get install python3-hpack for Debian's python3", macOS: "python3 -m pip install hpack")
    /// Pins a process to CPUs (Linux only: macOS has no CPU affinity to pin with).
    public static let taskset = command("taskset", name: "taskset (util-linux)", linux: "apt-get install util-linux", macOS: nil)
}

/// What a test that needs outside tools does: run, or — with one of them missing — be
/// skipped with the line that names it, or fail with that line in a CI run.
public enum ToolCheck: Sendable, Equatable {
    case run
    case skip(String)
    case fail(String)

    /// The decision for a test that needs `tools`, in a CI run or not.
    public init(_ tools: [ExternalTool], ci: Bool) {
        let missing = tools.filter { !$0.isAvailable }
        guard !missing.isEmpty else {
            self = .run
            return
        }
        let line = missing.map(\.missingLine).joined(separator: "; ")
        self = ci ? .fail(line + " (CI=true: a missing tool fails the test, it is not skipped)") : .skip(line)
    }
}

/// Thrown where a CI run lacks a tool a test needs.
public struct MissingTool: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
