import ContractTests
import Foundation
import MockServer
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
    public static func trusted() throws -> LocalCA {
        try once.get()
    }

    /// The delegate a session needs to trust the CA: `LocalCATrust` on Apple platforms,
    /// nil on Linux (the system store trusts it there).
    public static func sessionDelegate() throws -> LocalCATrust? {
        let ca = try trusted()
        #if canImport(Security)
        return LocalCATrust(ca)
        #else
        _ = ca
        return nil
        #endif
    }

    /// An ephemeral session that trusts the CA (see `sessionDelegate`).
    public static func session(configuration: URLSessionConfiguration = .ephemeral) throws -> URLSession {
        URLSession(configuration: configuration, delegate: try sessionDelegate(), delegateQueue: nil)
    }

    /// `trusted()` when `needed` (a transport over HTTPS).
    public static func prepare(_ needed: Bool) throws {
        if needed { _ = try trusted() }
    }

    private static let once = Result<LocalCA, any Error> {
        let ca = try LocalCA.loadOrCreate(in: LocalCA.defaultDirectory).ca
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
