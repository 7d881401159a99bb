import Foundation
import MockServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security)
import Security
#endif

/// A session delegate that trusts the mock's local CA besides the system's roots:
/// what lets a provider reach `.secureSockets` with no change to the device's trust.
/// Build the provider's session with it:
///
///     URLSession(configuration: context.sessionConfiguration, delegate: context.sessionDelegate, delegateQueue: nil)
///
/// On Apple platforms it answers the server-trust challenge with the CA as an extra
/// anchor (the host name and dates are still checked). URLSession on Linux (libcurl)
/// asks no such question and trusts the system store only: there the CA must be in it
/// (`mock-server ca --trust-system`), and the harness says so when it is not.
public final class LocalCATrust: NSObject, URLSessionDelegate, Sendable {
    /// The CA certificate, DER.
    public let anchor: Data

    /// Trusts the CA certificate `anchor` (DER).
    public init(anchor: Data) {
        self.anchor = anchor
    }

    /// Trusts `certificate` (`MockHTTPServer.caCertificate`, or `LocalCA.caCertificate`
    /// from `MockServerTLS`).
    public convenience init(_ certificate: CACertificate) {
        self.init(anchor: certificate.der)
    }

    #if canImport(Security)
    /// Answers a server-trust challenge with the CA as an extra anchor; other challenges get the default handling.
    public func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                           completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let trust = challenge.protectionSpace.serverTrust,
              let certificate = SecCertificateCreateWithData(nil, anchor as CFData) else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        SecTrustSetAnchorCertificates(trust, [certificate] as CFArray)
        SecTrustSetAnchorCertificatesOnly(trust, false)
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(trust, &error)
        completionHandler(Self.disposition(trusted: trusted), trusted ? URLCredential(trust: trust) : nil)
    }
    #endif

    /// The answer to a server-trust challenge once evaluated with the CA as an extra
    /// anchor. Trusted: the credential. Not trusted (a TLS-fault scenario's expired,
    /// wrong-host or unknown certificate): the system's own handling, so the task fails
    /// with the server-trust error an app sees, `URLError.serverCertificateUntrusted`
    /// (-1202) or its siblings. A cancel would surface as `URLError.cancelled` instead,
    /// which clients and the harness read as "not a failure".
    static func disposition(trusted: Bool) -> URLSession.AuthChallengeDisposition {
        trusted ? .useCredential : .performDefaultHandling
    }
}
