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
