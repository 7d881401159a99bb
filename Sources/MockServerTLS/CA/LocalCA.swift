import Crypto
import Foundation
import MockServer
import SwiftASN1
import X509
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The local certificate authority that signs the server's HTTPS certificates.
/// Generated on first use into a user folder (`~/.mock-server/ca/` unless told
/// otherwise) and reused, so a simulator or device trusts it once. Its key never leaves
/// that folder (mode 0600); nothing of it belongs in a repository.
///
/// Certificates follow Apple's rules for TLS server certificates
/// (support.apple.com/HT210176): ECDSA P-256 keys, SHA-256 signatures, the serverAuth
/// extended key usage, DNS and IP names in the subject alternative names, and at most
/// 825 days of validity (a leaf is issued per start for 397 days).
public struct LocalCA: Sendable {
    public static let certificateFile = "ca.pem"
    public static let keyFile = "ca-key.pem"
    /// The CA's own validity: ten years (Apple's 825-day limit is for server certificates).
    static let caValidity: TimeInterval = 10 * 365 * 86_400
    /// A server certificate's validity: 397 days, under every limit browsers and Apple set.
    static let leafValidity: TimeInterval = 397 * 86_400

    /// The folder the CA lives in.
    public let directory: URL
    let certificate: Certificate
    let privateKey: P256.Signing.PrivateKey

    /// Where the CA lives unless told otherwise, per platform:
    /// - macOS and Linux: `~/.mock-server/ca` (the home folder of the user running the
    ///   server), shared by `mock-server`, the tests and `mock-server ca`;
    /// - iOS (a test process in the simulator or on a device has no user home):
    ///   `Library/Application Support/MockServer/ca` in the app's container, which
    ///   survives launches and is not purged;
    /// - tvOS, and other Apple platforms: `Library/Caches/MockServer/ca` (tvOS apps may
    ///   keep files in their caches only). The system may purge it; a new CA is then
    ///   made, which in-process clients trust through `LocalCATrust` without setup.
    public static var defaultDirectory: URL {
        #if os(macOS)
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".mock-server/ca", isDirectory: true)
        #elseif os(iOS)
        return containerFolder(.applicationSupportDirectory).appendingPathComponent("MockServer/ca", isDirectory: true)
        #elseif canImport(Darwin)
        return containerFolder(.cachesDirectory).appendingPathComponent("MockServer/ca", isDirectory: true)
        #else
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".mock-server/ca", isDirectory: true)
        #endif
    }

    #if !os(macOS) && canImport(Darwin)
    /// The app container's folder of this kind (the temporary folder if there is none).
    private static func containerFolder(_ kind: FileManager.SearchPathDirectory) -> URL {
        FileManager.default.urls(for: kind, in: .userDomainMask).first ?? FileManager.default.temporaryDirectory
    }
    #endif

    /// The CA certificate's file, the one to trust.
    public var certificateURL: URL { directory.appendingPathComponent(Self.certificateFile) }

    /// The CA certificate in PEM.
    public var certificatePEM: String { (try? certificate.serializeAsPEM().pemString) ?? "" }

    /// The CA certificate in DER (what a `.mobileconfig` and `SecCertificateCreateWithData` take).
    public var certificateDER: [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// SHA-256 of the DER certificate, colon-separated upper-case hex (as Keychain Access
    /// and `openssl x509 -fingerprint -sha256` show it).
    public var fingerprint: String {
        SHA256.hash(data: certificateDER).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The CA certificate as clients take it (`LocalCATrust`, the admin API, `MobileConfig`).
    public var caCertificate: CACertificate {
        CACertificate(der: Data(certificateDER), pem: certificatePEM, fingerprint: fingerprint, file: certificateURL)
    }

    /// The CA's subject common name.
    public var commonName: String {
        certificate.subject.description
    }

    /// Loads the CA in `directory`, or creates one there when the folder holds none.
    /// - Returns: the CA and whether it was created now.
    public static func loadOrCreate(in directory: URL, now: Date = Date()) throws(LocalCAError) -> (ca: LocalCA, created: Bool) {
        let files = FileManager.default
        let certURL = directory.appendingPathComponent(certificateFile)
        let keyURL = directory.appendingPathComponent(keyFile)
        if files.fileExists(atPath: certURL.path) || files.fileExists(atPath: keyURL.path) {
            return (try load(from: directory), false)
        }
        let created = try create(now: now, directory: directory)
        let type = (try? files.attributesOfItem(atPath: directory.path)[.type]) as? FileAttributeType
        if type == nil || type == .typeDirectory {
            // Nothing there, or a folder: the CA goes in whole by a rename, which replaces an
            // empty folder and fails on one with files in it.
            if let placed = try createInPlace(created, directory: directory) { return placed }
            // Another process's CA landed meanwhile.
            if files.fileExists(atPath: certURL.path) || files.fileExists(atPath: keyURL.path) {
                return (try load(from: directory), false)
            }
        }
        // A folder with other files in it, or a link to one: written into.
        do {
            try files.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // The key first and private; the certificate's presence marks a complete CA.
            try write(Data(created.privateKey.pemRepresentation.utf8), to: keyURL, permissions: 0o600)
            try write(Data(created.certificatePEM.utf8), to: certURL, permissions: 0o644)
        } catch let error as LocalCAError {
            throw error
        } catch {
            throw LocalCAError(file: directory.path, reason: "cannot create the CA folder: \(error.localizedDescription)")
        }
        // Another process may have created one at the same moment: the files on disk win.
        return ((try? load(from: directory)) ?? created, true)
    }

    /// Writes a new CA into a folder of its own beside `directory` and renames it into
    /// place, so the folder appears whole or not at all. Two processes making the default
    /// CA at once (two test runs, two servers started together on a fresh machine) could
    /// otherwise leave one's key beside the other's certificate: a CA that never loads
    /// again. Nil when `directory` has files in it (another process's CA, got there first).
    private static func createInPlace(_ created: LocalCA, directory: URL) throws(LocalCAError) -> (ca: LocalCA, created: Bool)? {
        let files = FileManager.default
        let parent = directory.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(directory.lastPathComponent).\(UUID().uuidString)")
        do {
            // Private, as the CA folder was made before (`~/.mock-server` holds keys).
            try files.createDirectory(at: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw LocalCAError(file: parent.path, reason: "cannot create the CA folder's parent: \(error.localizedDescription)")
        }
        do {
            try files.createDirectory(at: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw LocalCAError(file: staging.path, reason: "cannot create the CA folder: \(error.localizedDescription)")
        }
        defer { try? files.removeItem(at: staging) }
        try write(Data(created.privateKey.pemRepresentation.utf8), to: staging.appendingPathComponent(keyFile), permissions: 0o600)
        try write(Data(created.certificatePEM.utf8), to: staging.appendingPathComponent(certificateFile), permissions: 0o644)
        if rename(staging.path, directory.path) == 0 { return (created, true) }
        let code = errno
        guard code == ENOTEMPTY || code == EEXIST else {
            throw LocalCAError(file: directory.path, reason: "the new CA cannot be moved there: \(String(cString: strerror(code)))")
        }
        return nil
    }

    /// Loads the CA in `directory`; the error names the file and what is wrong.
    public static func load(from directory: URL) throws(LocalCAError) -> LocalCA {
        let certURL = directory.appendingPathComponent(certificateFile)
        let keyURL = directory.appendingPathComponent(keyFile)
        let certificate: Certificate
        let key: P256.Signing.PrivateKey
        do {
            certificate = try Certificate(pemEncoded: try read(certURL))
        } catch let error as LocalCAError {
            throw error
        } catch {
            throw LocalCAError(file: certURL.path, reason: "not a PEM certificate (\(error)); delete the folder to make a new CA")
        }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: try read(keyURL))
        } catch let error as LocalCAError {
            throw error
        } catch {
            throw LocalCAError(file: keyURL.path, reason: "not a PEM P-256 private key (\(error)); delete the folder to make a new CA")
        }
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw LocalCAError(file: keyURL.path, reason: "this key does not belong to \(certURL.lastPathComponent); delete the folder to make a new CA")
        }
        return LocalCA(directory: directory, certificate: certificate, privateKey: key)
    }

    /// A CA in memory only: the untrusted CA of the `untrustedCertificate` fault, and tests.
    public static func ephemeral(name: String = "MockServer Untrusted CA", now: Date = Date()) throws(LocalCAError) -> LocalCA {
        try create(now: now, directory: URL(fileURLWithPath: "/dev/null"), name: name)
    }

    private static func create(now: Date, directory: URL, name: String? = nil) throws(LocalCAError) -> LocalCA {
        let key = P256.Signing.PrivateKey()
        let host = MachineName.current
        do {
            let subject = try DistinguishedName {
                CommonName(name ?? "MockServer Local CA (\(host))")
                OrganizationName("MockServer")
                OrganizationalUnitName("Local development only")
            }
            let publicKey = Certificate.PublicKey(key.publicKey)
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: publicKey,
                notValidBefore: now - 3600,
                notValidAfter: now + caValidity,
                issuer: subject,
                subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: publicKey)
                },
                issuerPrivateKey: Certificate.PrivateKey(key))
            return LocalCA(directory: directory, certificate: certificate, privateKey: key)
        } catch {
            throw LocalCAError(file: directory.path, reason: "cannot make a CA certificate: \(error)")
        }
    }

    /// A server certificate for `names`, signed by this CA: what the server presents.
    /// `notBefore`/`notAfter` default to now − 1 h … now + 397 days.
    public func issue(for names: [SubjectName], now: Date = Date(), notBefore: Date? = nil, notAfter: Date? = nil) throws(LocalCAError) -> ServerIdentity {
        let key = P256.Signing.PrivateKey()
        do {
            let publicKey = Certificate.PublicKey(key.publicKey)
            let first = names.first?.text ?? "localhost"
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: publicKey,
                notValidBefore: notBefore ?? now - 3600,
                notValidAfter: notAfter ?? now + Self.leafValidity,
                issuer: self.certificate.subject,
                subject: try DistinguishedName {
                    CommonName(first)
                    OrganizationName("MockServer")
                },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(names.map(\.generalName))
                    SubjectKeyIdentifier(hash: publicKey)
                    AuthorityKeyIdentifier(keyIdentifier: try self.certificate.extensions.subjectKeyIdentifier?.keyIdentifier)
                },
                issuerPrivateKey: Certificate.PrivateKey(privateKey))
            return ServerIdentity(certificatePEM: try certificate.serializeAsPEM().pemString,
                                  privateKeyPEM: key.pemRepresentation, names: names)
        } catch {
            throw LocalCAError(file: directory.path, reason: "cannot issue a server certificate: \(error)")
        }
    }

    private static func read(_ url: URL) throws(LocalCAError) -> String {
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw LocalCAError(file: url.path, reason: FileManager.default.fileExists(atPath: url.path)
                ? "cannot be read (\(error.localizedDescription))"
                : "is missing; delete the folder to make a new CA")
        }
    }

    private static func write(_ data: Data, to url: URL, permissions: Int) throws(LocalCAError) {
        guard FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: permissions]) else {
            throw LocalCAError(file: url.path, reason: "cannot be written")
        }
    }
}

/// A server certificate and its key, in PEM, as the TLS layer loads them.
public struct ServerIdentity: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String
    /// The subject alternative names it covers.
    public let names: [SubjectName]
}
