import Foundation
import MultipartKit

/// A multipart/form-data body split into parts, in order, by MultipartKit's parser.
public struct MultipartForm: Sendable {
    public struct Part: Sendable {
        public var name: String?
        public var filename: String?
        public var contentType: String?
        public var body: Data
    }

    public var parts: [Part]

    public enum Failure: Error { case notMultipart, noBoundary, malformed(String) }

    /// Parses `body` given the request's Content-Type.
    public static func parse(_ body: Data, contentType: String?) throws(Failure) -> MultipartForm {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { throw .notMultipart }
        guard let boundary = parameter("boundary", in: contentType), !boundary.isEmpty, boundary.count <= 200 else { throw .noBoundary }
        // A body without its closing delimiter was cut short: its last part would be lost silently.
        guard body.range(of: Data("--\(boundary)--".utf8)) != nil else {
            throw .malformed("the body has no closing boundary \"--\(boundary)--\"; was it cut short?")
        }
        // MultipartKit 4.7 indexes a 128-entry table with each header-name byte: a byte of
        // 0x80 or more there crashed the whole server (found by Fuzz/run.sh). Refuse first.
        if let problem = nonASCIIHeaderName(body, boundary: boundary) { throw .malformed(problem) }
        var parts: [Part] = []
        var headers: [(String, String)] = []
        var bytes = Data()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers.append((name, value)) }
        parser.onBody = { buffer in
            if let chunk = buffer.readBytes(length: buffer.readableBytes) { bytes.append(contentsOf: chunk) }
        }
        parser.onPartComplete = {
            let disposition = headers.first { $0.0.lowercased() == "content-disposition" }?.1 ?? ""
            parts.append(Part(
                name: parameter("name", in: disposition),
                filename: parameter("filename", in: disposition),
                contentType: headers.first { $0.0.lowercased() == "content-type" }?.1,
                body: bytes))
            headers = []
            bytes = Data()
        }
        do {
            try parser.execute([UInt8](body))
        } catch {
            throw .malformed("the multipart body is malformed")
        }
        guard !parts.isEmpty else { throw .malformed("the multipart body has no parts") }
        return MultipartForm(parts: parts)
    }

    /// Where a part's header name has a byte that is not ASCII (names are tokens; values
    /// such as file names may be UTF-8). Every header block is checked: from each
    /// delimiter to the blank line that ends it, each line's bytes before its first colon.
    static func nonASCIIHeaderName(_ body: Data, boundary: String) -> String? {
        let bytes = [UInt8](body)
        let delimiter = [UInt8]("--\(boundary)".utf8)
        var index = 0
        var part = 0
        while let start = find(delimiter, in: bytes, from: index) {
            var position = start + delimiter.count
            part += 1
            var inName = true
            var lineLength = 0
            // Up to the blank line (CRLF CRLF) that ends this part's headers.
            while position < bytes.count {
                let byte = bytes[position]
                if byte == 0x0A {
                    if lineLength <= 1 && position > start + delimiter.count + 2 { break }   // an empty line: the headers end
                    inName = true
                    lineLength = 0
                } else {
                    lineLength += 1
                    if byte == UInt8(ascii: ":") { inName = false }
                    if inName && byte >= 0x80 {
                        return "part \(part) has a header name with a byte that is not ASCII (0x\(String(byte, radix: 16, uppercase: true)))"
                    }
                }
                position += 1
            }
            index = max(position, start + delimiter.count)
        }
        return nil
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// `value` of `name=value` or `name="value"` in a header such as Content-Disposition.
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
