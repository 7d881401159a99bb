import MockCore
import NIOCore
import NIOHTTP1

/// The bytes of an HTTP/1.1 response head, written straight into the buffer that also
/// carries the body, so a whole response leaves in one write. Used instead of NIO's
/// response encoder, which turns every response into three pipeline messages and a
/// header-array copy.
enum ResponseHead {
    /// How the body is delimited on the wire.
    enum Framing {
        /// `Content-Length: n` (the body may still be cut short by a fault).
        case length(Int)
        /// `Transfer-Encoding: chunked`; the caller frames each chunk (`chunk(_:into:)`).
        case chunked
        /// No body and no framing header (1xx, 204, 304).
        case none
    }

    /// "200 OK\r\n" and the like for every status from 100 to 599, built once.
    private static let statusLines: [[UInt8]] = (100...599).map {
        Array("\($0) \(HTTPResponseStatus(statusCode: $0).reasonPhrase)\r\n".utf8)
    }

    /// Bytes enough for the head `write` produces with these headers: allocating this
    /// much up front spares a reallocation and copy of every response.
    static func capacity(for headers: HeaderFields) -> Int {
        var bytes = 0
        for field in headers { bytes += field.name.utf8.count + field.value.utf8.count + 4 }
        return capacity(forFieldBytes: bytes)
    }

    /// The same, for header lines already encoded (`HeaderLinesCache`).
    static func capacity(forFieldBytes bytes: Int) -> Int {
        // Status line (≤ 64), Content-Length or Transfer-Encoding (≤ 48), Connection (≤ 32), blank line.
        160 + bytes
    }

    /// Writes the status line, `headers` (except the framing and connection headers, which
    /// this sets), and the blank line. The caller has checked `headers.areWritable`
    /// (`ResponseWriter.canWrite` does, once per plan).
    static func write(status: Int, http10: Bool = false, headers: HeaderFields, framing: Framing, keepAlive: Bool,
                      into buffer: inout ByteBuffer) {
        writeStatusLine(status: status, http10: http10, into: &buffer)
        writeFields(headers, into: &buffer)
        writeEnd(framing: framing, keepAlive: keepAlive, into: &buffer)
    }

    static func writeStatusLine(status: Int, http10: Bool, into buffer: inout ByteBuffer) {
        buffer.writeStaticString(http10 ? "HTTP/1.0 " : "HTTP/1.1 ")
        if (100...599).contains(status) {
            buffer.writeBytes(statusLines[status - 100])
        } else {
            buffer.writeString("\(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n")
        }
    }

    /// `name: value` lines for every field but the framing and connection ones.
    static func writeFields(_ headers: HeaderFields, into buffer: inout ByteBuffer) {
        for field in headers where !isFraming(field.name) {
            buffer.writeString(field.name)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
    }

    /// `value`'s decimal digits, written in place: no `String` is made for them on every
    /// response.
    static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        guard value > 0 else {
            buffer.writeString(String(value))   // 0 (a negative count is never written)
            return
        }
        var digits = 0, rest = value
        while rest > 0 { digits += 1; rest /= 10 }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: digits) { bytes in
            var rest = value
            for index in stride(from: digits - 1, through: 0, by: -1) {
                bytes[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            return digits
        }
    }

    /// The framing header this writer chose, `Connection`, and the blank line.
    static func writeEnd(framing: Framing, keepAlive: Bool, into buffer: inout ByteBuffer) {
        switch framing {
        case .length(let count):
            buffer.writeStaticString("Content-Length: ")
            writeDecimal(count, into: &buffer)
            buffer.writeStaticString("\r\n")
        case .chunked:
            buffer.writeStaticString("Transfer-Encoding: chunked\r\n")
        case .none:
            break
        }
        buffer.writeStaticString(keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n")
    }

    /// One chunk of a chunked body: size in hex, CRLF, the bytes, CRLF.
    static func chunk(_ bytes: some Collection<UInt8>, into buffer: inout ByteBuffer) {
        guard !bytes.isEmpty else { return }   // an empty chunk would end the body
        buffer.writeString(String(bytes.count, radix: 16))
        buffer.writeStaticString("\r\n")
        buffer.writeBytes(bytes)
        buffer.writeStaticString("\r\n")
    }

    /// Headers this writer owns: a plan's own would contradict the framing it chose.
    private static func isFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 10: return name.caseInsensitiveEquals("connection")
        case 14: return name.caseInsensitiveEquals("content-length")
        case 17: return name.caseInsensitiveEquals("transfer-encoding")
        default: return false
        }
    }
}

/// The header lines a connection last wrote, kept to be written again. Most answers
/// share their header list: every JSON answer without other headers shares one made once,
/// an image its own. Checking a plan's fields and encoding them is work that an unchanged
/// list does not need again: a plan whose list is the one kept (the same array storage,
/// `HeaderFields.sharesStorage`) reuses the lines checked and encoded before. The kept
/// list is retained, so no other list can take its storage while it is kept.
struct HeaderLinesCache {
    private var last: (headers: HeaderFields, lines: ByteBuffer)?

    /// The encoded lines of `headers` if they are the ones kept.
    func lines(for headers: HeaderFields) -> ByteBuffer? {
        guard let last, last.headers.sharesStorage(with: headers) else { return nil }
        return last.lines
    }

    /// Keeps `lines` (already checked and written) as the encoding of `headers`.
    mutating func keep(_ lines: ByteBuffer, for headers: HeaderFields) {
        last = (headers, lines)
    }
}
