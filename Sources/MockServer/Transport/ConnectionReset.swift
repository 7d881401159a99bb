import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Channel {
    /// Closes with a TCP RST instead of a FIN: SO_LINGER with a zero timeout, then close.
    /// The `connectionReset` fault and the TLS `handshakeReset` both end connections so.
    package func resetConnection() {
        guard let provider = self as? any SocketOptionProvider else {
            close(promise: nil)
            return
        }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { [self] _ in
            close(promise: nil)
        }
    }
}
