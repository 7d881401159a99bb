import Foundation

/// A multipart/form-data body (RFC 7578) split into parts, in order.
///
/// Our own parser, on bytes, bounded: a crash takes the whole server down and cannot be
/// caught, and MultipartKit 4.7 traps on a byte of 0x80 or more in a part's header name
/// (an index past a 128-entry table; `Fuzz/run.sh` finds it). Strict where iOS clients
/// are: CRLF line ends, headers up to a blank line, a closing delimiter.
public struct MultipartForm: Sendable {
    /// One part of the form, its headers read and its body as sent.
    public struct Part: Sendable {
        /// The `name` parameter of the part's `Content-Disposition`, nil when absent.
        public var name: String?
        /// The `filename` parameter of the part's `Content-Disposition`, nil when absent.
        public var filename: String?
        /// The part's `Content-Type`, nil when absent.
        public var contentType: String?
        /// The part's bytes, without the CRLF before the next delimiter.
        public var body: Data
    }

    /// The parts in body order.
    public var parts: [Part]

    /// Why a body is not a form: not `multipart/form-data`, no usable `boundary` parameter,
    /// or a body that breaks the format (the reason says where).
    public enum Failure: Error { case notMultipart, noBoundary, malformed(String) }

    /// At most this many parts (Open Market takes a `params` part and five images).
    public static let maxParts = 64
    /// At most this many bytes of headers per part.
    public static let maxHeaderBytes = 16 * 1024

    /// Parses `body` given the request's Content-Type.
    public static func parse(_ body: Data, contentType: String?) throws(Failure) -> MultipartForm {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { throw .notMultipart }
        guard let boundary = parameter("boundary", in: contentType), !boundary.isEmpty, boundary.count <= 200 else { throw .noBoundary }
        let bytes = [UInt8](body)
        let delimiter = [UInt8]("--\(boundary)".utf8)
        let crlf: [UInt8] = [0x0D, 0x0A]
        // The first delimiter starts the body or follows a preamble line.
        guard var position = bytes.starts(with: delimiter) ? 0 : find(crlf + delimiter, in: bytes, from: 0).map({ $0 + 2 }) else {
            throw .malformed("the body has no boundary \"--\(boundary)\"")
        }
        var parts: [Part] = []
        while true {
            position += delimiter.count
            if bytes[position...].starts(with: [0x2D, 0x2D]) { break }   // "--": the closing delimiter
            // Nothing but line ends after a delimiter: the body ended on "--B" where the
            // closing "--B--" belongs (a part of its own would start with headers).
            if bytes[position...].allSatisfy({ $0 == 0x0D || $0 == 0x0A || $0 == 0x20 || $0 == 0x09 }) {
                guard !parts.isEmpty else { throw .malformed("the multipart body has no parts") }
                throw .malformed("the closing boundary \"--\(boundary)--\" is missing: after part \(parts.count) the body ends with "
                                 + "\"--\(boundary)\", without the two hyphens that close it")
            }
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 { position += 1 }   // padding
            guard bytes[position...].starts(with: crlf) else {
                throw .malformed("part \(parts.count + 1): the boundary line does not end with CRLF")
            }
            position += 2
            guard let headersEnd = find(crlf + crlf, in: bytes, from: position, limit: maxHeaderBytes) else {
                throw .malformed("part \(parts.count + 1): no blank line ends its headers within \(maxHeaderBytes) bytes")
            }
            let headers = try headerFields(bytes[position..<headersEnd], part: parts.count + 1)
            let bodyStart = headersEnd + 4
            guard let next = find(crlf + delimiter, in: bytes, from: bodyStart) else {
                throw .malformed("the body has no closing boundary \"--\(boundary)--\"; was it cut short?")
            }
            let disposition = headers.first { $0.name.lowercased() == "content-disposition" }?.value ?? ""
            parts.append(Part(
                name: parameter("name", in: disposition),
                filename: parameter("filename", in: disposition),
                contentType: headers.first { $0.name.lowercased() == "content-type" }?.value,
                body: Data(bytes[bodyStart..<next])))
            guard parts.count <= maxParts else { throw .malformed("more than \(maxParts) parts") }
            position = next + 2
        }
        guard !parts.isEmpty else { throw .malformed("the multipart body has no parts") }
        return MultipartForm(parts: parts)
    }

    /// `Name: value` lines; names are tokens (ASCII), values are read as UTF-8 (file names).
    static func headerFields(_ block: ArraySlice<UInt8>, part: Int) throws(Failure) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        var lineStart = block.startIndex
        while lineStart < block.endIndex {
            // The line ends at the next CRLF; the last one runs to the block's end.
            var lineEnd = lineStart
            while lineEnd < block.endIndex && !(block[lineEnd] == 0x0D && lineEnd + 1 < block.endIndex && block[lineEnd + 1] == 0x0A) {
                lineEnd += 1
            }
            let line = block[lineStart..<lineEnd]
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                throw .malformed("part \(part): a header line has no name")
            }
            let name = line[line.startIndex..<colon]
            guard name.allSatisfy(HeaderFields.isTokenByte) else {
                throw .malformed("part \(part): a header name has a byte that is not allowed in a token (names are ASCII)")
            }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            fields.append((String(decoding: name, as: UTF8.self), value))
            lineStart = lineEnd + 2
        }
        return fields
    }

    /// The first index of `needle` in `haystack` at or after `start`, looking at most
    /// `limit` bytes past `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int, limit: Int = .max) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        let last = min(haystack.count - needle.count, start > Int.max - limit ? Int.max : start + limit)
        guard start <= last else { return nil }
        var index = start
        while index <= last {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";") {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            var value = pair[1]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}
