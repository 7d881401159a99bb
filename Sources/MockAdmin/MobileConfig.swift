import Foundation

/// An iOS configuration profile that installs the local CA: open it in Safari on a
/// device (or drag it onto a simulator), install it in Settings › General › VPN & Device
/// Management, then turn on full trust in Settings › General › About › Certificate Trust
/// Settings. Its identifiers derive from the CA's fingerprint, so fetching it again
/// replaces the installed profile instead of adding a second one.
public enum MobileConfig {
    /// The media type iOS opens as a configuration profile.
    public static let contentType = "application/x-apple-aspen-config"

    /// The profile, a property list, that installs `ca` as a root certificate.
    public static func profile(for ca: CACertificate) -> Data {
        let fingerprint = ca.fingerprint.replacingOccurrences(of: ":", with: "")
        let certificate: [String: Any] = [
            "PayloadType": "com.apple.security.root",
            "PayloadVersion": 1,
            "PayloadIdentifier": "dev.mock-server.ca.\(fingerprint.prefix(16))",
            "PayloadUUID": uuid(fingerprint, "certificate"),
            "PayloadDisplayName": "MockServer Local CA",
            "PayloadDescription": "Trusts the certificates mock-server issues for HTTPS on this machine.",
            "PayloadCertificateFileName": "mock-server-ca.cer",
            "PayloadContent": ca.der,
        ]
        let profile: [String: Any] = [
            "PayloadType": "Configuration",
            "PayloadVersion": 1,
            "PayloadIdentifier": "dev.mock-server.profile.\(fingerprint.prefix(16))",
            "PayloadUUID": uuid(fingerprint, "profile"),
            "PayloadDisplayName": "MockServer Local CA",
            "PayloadDescription": "For development only: lets apps reach a mock-server over HTTPS. SHA-256 \(ca.fingerprint)",
            "PayloadOrganization": "MockServer",
            "PayloadRemovalDisallowed": false,
            "PayloadContent": [certificate],
        ]
        return (try? PropertyListSerialization.data(fromPropertyList: profile, format: .xml, options: 0)) ?? Data()
    }

    /// A UUID-shaped identifier from the fingerprint (stable across fetches).
    static func uuid(_ fingerprint: String, _ salt: String) -> String {
        let hex = Array((fingerprint + salt.utf8.map { String(format: "%02X", $0) }.joined()).prefix(32))
        let padded = hex + Array(repeating: Character("0"), count: max(0, 32 - hex.count))
        let text = String(padded)
        let parts = [text.prefix(8), text.dropFirst(8).prefix(4), text.dropFirst(12).prefix(4), text.dropFirst(16).prefix(4), text.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
