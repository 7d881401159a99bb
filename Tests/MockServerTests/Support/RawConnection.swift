import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to loopback, for what URLSession hides: exact bytes,
/// pipelining, malformed requests, connection closes. Blocking calls run on threads of
/// their own: not the cooperative pool, and not `DispatchQueue.global()`, whose threads
/// on Linux are as many as cores and which other tests' timers wait on.
final class RawConnection: @unchecked Sendable {
    private let fd: Int32

    init(port: Int) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        #if canImport(Darwin)
        // Darwin has no MSG_NOSIGNAL: a send to a closed peer would raise SIGPIPE and end
        // the test process; the socket option turns it into EPIPE.
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // No close here: a class whose init throws after its properties are set is
        // deinitialized, and `deinit` closes the descriptor. Closing it twice would close
        // whatever the number was given to next in between (another test's socket).
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { if fd >= 0 { _ = close(fd) } }

    func send(_ text: String) { send(Data(text.utf8)) }

    func send(_ data: Data) {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let sent = Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let sent = Darwin.send(fd, buffer.baseAddress! + offset, buffer.count - offset, 0)
                #endif
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    /// Sends what the peer accepts within `timeout` without blocking past it (a server that
    /// stops reading cannot hang the test); returns the bytes sent.
    func sendWithin(_ data: Data, timeout: TimeInterval) async -> Int {
        await withCheckedContinuation { continuation in
            Thread {
                let deadline = Date().addingTimeInterval(timeout)
                var offset = 0
                data.withUnsafeBytes { buffer in
                    while offset < buffer.count && Date() < deadline {
                        var pollDescriptor = pollfd(fd: self.fd, events: Int16(POLLOUT), revents: 0)
                        guard poll(&pollDescriptor, 1, 50) > 0 else { continue }
                        #if canImport(Glibc)
                        let sent = Glibc.send(self.fd, buffer.baseAddress! + offset, min(65536, buffer.count - offset), Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                        #else
                        let sent = Darwin.send(self.fd, buffer.baseAddress! + offset, min(65536, buffer.count - offset), MSG_DONTWAIT)
                        #endif
                        if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { continue }
                        if sent <= 0 { break }
                        offset += sent
                    }
                }
                continuation.resume(returning: offset)
            }.start()
        }
    }

    /// Reads and drops bytes until `total` have arrived or `timeout` passes; returns the count.
    func drain(total: Int, timeout: TimeInterval) async -> Int {
        await withCheckedContinuation { continuation in
            Thread {
                let deadline = Date().addingTimeInterval(timeout)
                var received = 0
                var buffer = [UInt8](repeating: 0, count: 65536)
                while received < total && Date() < deadline {
                    var pollDescriptor = pollfd(fd: self.fd, events: Int16(POLLIN), revents: 0)
                    guard poll(&pollDescriptor, 1, 100) > 0 else { continue }
                    let count = recv(self.fd, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += count
                }
                continuation.resume(returning: received)
            }.start()
        }
    }

    /// Sets the socket's receive buffer (before data flows), to make a small window.
    func setReceiveBuffer(_ bytes: Int32) {
        var value = bytes
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Reads until the peer closes, `done` says enough, or `timeout` passes. The timeout
    /// only bounds a failure (a read returns as soon as the answer is in), so it is a
    /// minute: a loaded 2-core machine once took longer than 5 s to answer a keep-alive
    /// request here.
    func read(timeout: TimeInterval = 60, until done: @escaping @Sendable (Data) -> Bool = { _ in false }) async -> RawRead {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: self.readBlocking(timeout: timeout, until: done))
            }.start()
        }
    }

    /// Sends `text`, then reads as `read(timeout:until:)` does, and gives the seconds from
    /// the send to the end of the read. Both are measured on the reading thread: a test
    /// process whose shared pool other tests hold does not add to them.
    func exchange(_ text: String, timeout: TimeInterval = 60,
                  until done: @escaping @Sendable (Data) -> Bool = { _ in false }) async -> (read: RawRead, seconds: TimeInterval) {
        await withCheckedContinuation { continuation in
            Thread {
                let start = Date()
                self.send(text)
                let read = self.readBlocking(timeout: timeout, until: done)
                continuation.resume(returning: (read, Date().timeIntervalSince(start)))
            }.start()
        }
    }

    private func readBlocking(timeout: TimeInterval, until done: (Data) -> Bool) -> RawRead {
        var received = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var pollDescriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            let ready = poll(&pollDescriptor, 1, min(remaining, 100))
            if ready < 0 { return RawRead(data: received, end: .error(errno)) }
            if ready == 0 { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return RawRead(data: received, end: .closed) }
            if count < 0 { return RawRead(data: received, end: errno == ECONNRESET ? .reset : .error(errno)) }
            received.append(contentsOf: buffer[0..<count])
            if done(received) { return RawRead(data: received, end: .stillOpen) }
        }
        return RawRead(data: received, end: .timedOut)
    }
}

struct RawRead {
    enum End: Equatable { case closed, reset, stillOpen, timedOut, error(Int32) }
    let data: Data
    let end: End
    var text: String { String(decoding: data, as: UTF8.self) }
    var responses: [RawResponse] { RawResponse.parseAll(data) }
}

/// A response parsed from raw bytes (Content-Length bodies only; HEAD/304 have none).
struct RawResponse {
    let status: Int
    let headers: [(String, String)]
    let body: Data

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

    static func parseAll(_ data: Data, headRequests: Set<Int> = []) -> [RawResponse] {
        var responses: [RawResponse] = []
        var rest = data[...]
        let separator = Data("\r\n\r\n".utf8)
        while let end = rest.range(of: separator) {
            let headText = String(decoding: rest[..<end.lowerBound], as: UTF8.self)
            let lines = headText.components(separatedBy: "\r\n")
            let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
            let headers = lines.dropFirst().compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            var length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
            if headRequests.contains(responses.count) || status == 304 || status == 204 { length = 0 }
            let bodyStart = end.upperBound
            let available = rest.distance(from: bodyStart, to: rest.endIndex)
            let body = Data(rest[bodyStart..<rest.index(bodyStart, offsetBy: min(length, available))])
            responses.append(RawResponse(status: status, headers: headers, body: body))
            rest = rest[rest.index(bodyStart, offsetBy: min(length, available))...]
        }
        return responses
    }
}
