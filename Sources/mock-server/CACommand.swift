import ArgumentParser
import Foundation
import MockServer
import MockServerCLI
import MockServerTLS

/// `mock-server ca`: the local CA that signs `--tls` certificates, and trusting it in one step.
struct CACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Print the local CA's path and SHA-256 fingerprint (creating the CA if there is none), and trust it.",
        discussion: """
            The CA signs the certificate `mock-server --tls` presents; trust it once per \
            simulator, device or machine. Devices: open /__admin/ca.mobileconfig of a running \
            server in Safari. Exit status 2 for an unusable CA folder or bad arguments.
            """)

    @Option(name: .customLong("ca-dir"), help: ArgumentHelp("The CA's folder.", valueName: "dir"))
    var caDirectory: String = LocalCA.defaultDirectory.path

    @Option(help: ArgumentHelp("Add the CA to a simulator's trusted roots: `booted` or a device UDID. Runs `xcrun simctl keychain ... add-root-cert` on macOS; elsewhere prints it.", valueName: "device"))
    var simulator: String?

    @Flag(name: .customLong("trust-system"), help: "Add the CA to this machine's trust store: on Linux (root) the system store that curl and URLSession use; on macOS, prints the `security add-trusted-cert` command.")
    var trustSystem = false

    @Flag(help: "Print the CA certificate itself (PEM) and nothing else.")
    var pem = false

    func run() throws {
        let ca: LocalCA
        let created: Bool
        do {
            (ca, created) = try LocalCA.loadOrCreate(in: URL(fileURLWithPath: caDirectory, isDirectory: true))
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        if pem {
            print(ca.certificatePEM, terminator: ca.certificatePEM.hasSuffix("\n") ? "" : "\n")
            return
        }
        print("CA certificate: \(ca.certificateURL.path)\(created ? " (created now)" : "")")
        print("SHA-256: \(ca.fingerprint)")
        if let simulator {
            try addToSimulator(ca, device: simulator)
        }
        if trustSystem {
            try trustOnThisMachine(ca)
        }
    }

    private func addToSimulator(_ ca: LocalCA, device: String) throws {
        let command = ca.simulatorCommand(device: device)
        #if os(macOS)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            FileHandle.standardError.write(Data("error: \(command.joined(separator: " ")) exited with status \(process.terminationStatus)\n".utf8))
            throw ExitCode(1)
        }
        print("Trusted by simulator \(device).")
        #else
        print("On the Mac that runs the simulator:")
        print("  " + command.map(Self.quoted).joined(separator: " "))
        #endif
    }

    private func trustOnThisMachine(_ ca: LocalCA) throws {
        #if os(Linux)
        do {
            try ca.installInSystemStore()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
        print("Trusted by this machine: \(LocalCA.linuxBundle)")
        #else
        print("To trust it on this Mac:")
        print("  " + ca.macOSTrustCommand.map(Self.quoted).joined(separator: " "))
        #endif
    }

    static func quoted(_ word: String) -> String {
        word.contains(where: { " '\"$\\".contains($0) }) ? "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" : word
    }
}
