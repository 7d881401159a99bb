import Foundation

/// A CA certificate as clients take it: the anchor a session adds, the file a simulator
/// or a Mac trusts, the profile a device installs.
public struct CACertificate: Sendable, Equatable {
    /// The bundle libcurl (and so URLSession on Linux) reads.
    public static let linuxBundle = "/etc/ssl/certs/ca-certificates.crt"

    /// DER (what a `.mobileconfig` and `SecCertificateCreateWithData` take).
    public let der: Data
    /// PEM, as the admin API serves it.
    public let pem: String
    /// SHA-256 of `der`, colon-separated upper-case hex (as Keychain Access and
    /// `openssl x509 -fingerprint -sha256` show it).
    public let fingerprint: String
    /// The file that holds it.
    public let file: URL

    /// Makes a certificate of its DER and PEM forms, the DER's SHA-256 `fingerprint` and the file that holds it.
    public init(der: Data, pem: String, fingerprint: String, file: URL) {
        self.der = der
        self.pem = pem
        self.fingerprint = fingerprint
        self.file = file
    }

    /// Whether the system bundle at `bundle` holds this certificate (what URLSession on
    /// Linux trusts).
    public func isInSystemBundle(_ bundle: String = CACertificate.linuxBundle) -> Bool {
        guard let text = try? String(contentsOfFile: bundle, encoding: .utf8) else { return false }
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return !body.isEmpty && text.replacingOccurrences(of: "\n", with: "").contains(body)
    }
}
