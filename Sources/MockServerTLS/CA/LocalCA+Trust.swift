import Foundation
import MockServer

/// Making clients trust the local CA.
extension LocalCA {
    /// Debian's and Ubuntu's folder for local anchors (`update-ca-certificates` reads it).
    public static let linuxAnchorFolder = "/usr/local/share/ca-certificates"
    /// The bundle libcurl (and so URLSession on Linux) reads.
    public static let linuxBundle = CACertificate.linuxBundle

    /// The command that adds this CA to a simulator's trusted roots (`booted`, or a UDID).
    public func simulatorCommand(device: String) -> [String] {
        ["xcrun", "simctl", "keychain", device, "add-root-cert", certificateURL.path]
    }

    /// The command that makes macOS trust this CA for every user (Safari, curl, Xcode previews).
    public var macOSTrustCommand: [String] {
        ["sudo", "security", "add-trusted-cert", "-d", "-r", "trustRoot", "-k", "/Library/Keychains/System.keychain", certificateURL.path]
    }

    /// The file name this CA gets among the system's anchors.
    public var anchorFileName: String {
        "mock-server-" + fingerprint.replacingOccurrences(of: ":", with: "").prefix(16).lowercased() + ".crt"
    }

    /// Whether the system bundle at `bundle` holds this CA (what URLSession on Linux trusts).
    public func isInSystemBundle(_ bundle: String = LocalCA.linuxBundle) -> Bool {
        caCertificate.isInSystemBundle(bundle)
    }

    #if os(Linux)
    /// Adds this CA to a Debian-style system store (`update-ca-certificates`): what
    /// curl, libcurl and URLSession on Linux trust. Needs root. A no-op when it is in.
    /// Linux only: it runs a process, which iOS and tvOS do not have; on a Mac the CA is
    /// trusted with `macOSTrustCommand` (Keychain), on a simulator with `simulatorCommand`.
    public func installInSystemStore(anchorFolder: String = LocalCA.linuxAnchorFolder) throws(LocalCAError) {
        guard !isInSystemBundle() else { return }
        let target = URL(fileURLWithPath: anchorFolder).appendingPathComponent(anchorFileName)
        do {
            try FileManager.default.createDirectory(atPath: anchorFolder, withIntermediateDirectories: true)
            try Data(certificatePEM.utf8).write(to: target)
        } catch {
            throw LocalCAError(file: target.path, reason: "cannot be written (\(error.localizedDescription)); run as root, or copy \(certificateURL.path) there and run update-ca-certificates")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/update-ca-certificates")
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            throw LocalCAError(file: process.executableURL!.path, reason: "cannot run (\(error.localizedDescription)); install Debian's ca-certificates")
        }
        guard process.terminationStatus == 0, isInSystemBundle() else {
            throw LocalCAError(file: Self.linuxBundle, reason: "update-ca-certificates did not add \(target.path) (exit status \(process.terminationStatus))")
        }
    }
    #endif
}

extension MobileConfig {
    /// The profile that installs `ca` (see `profile(for:)` with a `CACertificate`).
    public static func profile(for ca: LocalCA) -> Data {
        profile(for: ca.caCertificate)
    }
}
