import ContractTests
import Foundation
import MockServer
import MockServerTLS
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The local CA the HTTPS tests use: the default one (`~/.mock-server/ca`, what users'
/// `--tls` and `.secureSockets` use), made trusted by URLSession. On Linux that is the
/// system store, which libcurl reads; as root the tests add it there (`mock-server ca
/// --trust-system` does the same), otherwise they fail saying so. On Apple platforms a
/// session trusts it through its delegate (`sessionDelegate`, `LocalCATrust`), as users'
/// tests do with `ProviderContext.sessionDelegate`; the keychain is left alone.
public enum TestCA {
    /// The CA, made and trusted on the first call. The work (a key, a certificate, and as
    /// root on Linux `update-ca-certificates`) runs on a thread of its own: on a fresh
    /// machine it takes a while, and every HTTPS test asks for it at once.
    public static func trusted() async throws -> LocalCA {
        try await ready.value
    }

    /// The delegate a session needs to trust the CA: `LocalCATrust` on Apple platforms,
    /// nil on Linux (the system store trusts it there).
    public static func sessionDelegate() async throws -> LocalCATrust? {
        let ca = try await trusted()
        #if canImport(Security)
        return LocalCATrust(ca.caCertificate)
        #else
        _ = ca
        return nil
        #endif
    }

    #if canImport(Security)
    /// `sessionDelegate()` for a session made in a static initializer. On Apple platforms
    /// nothing is installed, so loading (or making) the CA is quick.
    public static func sessionDelegateNow() throws -> LocalCATrust {
        LocalCATrust(try stored.get().caCertificate)
    }
    #endif

    /// An ephemeral session that trusts the CA (see `sessionDelegate`).
    public static func session(configuration: URLSessionConfiguration = .ephemeral) async throws -> URLSession {
        URLSession(configuration: configuration, delegate: try await sessionDelegate(), delegateQueue: nil)
    }

    /// `trusted()` when `needed` (a transport over HTTPS).
    public static func prepare(_ needed: Bool) async throws {
        if needed { _ = try await trusted() }
    }

    private static let ready = Task<LocalCA, any Error> { try await onOwnThread(make) }

    /// The CA on disk, loaded (or made) once for the process.
    private static let stored = Result<LocalCA, any Error> { try LocalCA.loadOrCreate(in: LocalCA.defaultDirectory).ca }

    private static func make() throws -> LocalCA {
        let ca = try stored.get()
        #if os(Linux)
        if !ca.isInSystemBundle() {
            guard getuid() == 0 else {
                throw LocalCAError(file: ca.certificateURL.path, reason: "URLSession on Linux trusts only the system store: run `swift run mock-server ca --trust-system` as root once, then the HTTPS tests")
            }
            try ca.installInSystemStore()
        }
        #endif
        return ca
    }
}
