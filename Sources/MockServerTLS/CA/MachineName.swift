#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// This machine's host name as the kernel has it (`gethostname(3)`), read once per
/// process: what the local CA's name and the server certificate's names use.
///
/// Not `ProcessInfo.processInfo.hostName`: on Apple platforms that resolves the machine's
/// addresses back to names, a blocking lookup that can take seconds on a network with no
/// DNS for the Mac (a train, a hotel), and it ran on every `--tls` start.
enum MachineName {
    static let current: String = read()

    /// The kernel's host name; `localhost` if it cannot be read.
    static func read() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
