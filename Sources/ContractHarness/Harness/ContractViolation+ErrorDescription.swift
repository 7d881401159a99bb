import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the checks word a provider's error, the same on every platform. Suites in other
/// modules (`OpenAPIDocumentContract`'s) use it so their messages read as the shipped ones.
extension ContractViolation {
    /// An error as the checks' messages show it: a `DecodingError` with the JSON path
    /// where it stopped, a `URLError` by its code's name on every platform, and a
    /// provider's own error with the `URLError` it carries, if any.
    public static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError { return describe(urlError) }
        if let decoding = error as? DecodingError {
            switch decoding {
            case .typeMismatch(let type, let context):
                return "DecodingError.typeMismatch(\(type)) at \(jsonPath(context.codingPath)): \(context.debugDescription)"
            case .valueNotFound(let type, let context):
                return "DecodingError.valueNotFound(\(type)) at \(jsonPath(context.codingPath)): \(context.debugDescription)"
            case .keyNotFound(let key, let context):
                return "DecodingError.keyNotFound(\"\(key.stringValue)\") at \(jsonPath(context.codingPath))"
            case .dataCorrupted(let context):
                return "DecodingError.dataCorrupted at \(jsonPath(context.codingPath)): \(context.debugDescription)"
            @unknown default: return "DecodingError: \(decoding)"
            }
        }
        // A provider's own error that carries the URLError (`case transport(URLError)`)
        // says which, so a timeout reads as one whatever the wrapping.
        if let inner = wrappedURLError(in: error, depth: 3) {
            return "\(type(of: error)): \(error) — from \(describe(inner))"
        }
        return "\(type(of: error)): \(error)"
    }

    /// `URLError -1001 (timedOut)`, the same text on every platform: Apple's
    /// `URLError.Code` is a struct that prints as `Code(rawValue: -1001)`, corelibs' an
    /// enum that prints its case name.
    static func describe(_ error: URLError) -> String {
        "URLError \(error.code.rawValue) (\(name(of: error.code)))"
    }

    static func name(of code: URLError.Code) -> String {
        switch code {
        case .timedOut: return "timedOut"
        case .cancelled: return "cancelled"
        case .cannotConnectToHost: return "cannotConnectToHost"
        case .networkConnectionLost: return "networkConnectionLost"
        case .notConnectedToInternet: return "notConnectedToInternet"
        case .cannotFindHost: return "cannotFindHost"
        case .dnsLookupFailed: return "dnsLookupFailed"
        case .badServerResponse: return "badServerResponse"
        case .cannotParseResponse: return "cannotParseResponse"
        case .zeroByteResource: return "zeroByteResource"
        case .cannotDecodeRawData: return "cannotDecodeRawData"
        case .cannotDecodeContentData: return "cannotDecodeContentData"
        case .resourceUnavailable: return "resourceUnavailable"
        case .badURL: return "badURL"
        case .unsupportedURL: return "unsupportedURL"
        case .httpTooManyRedirects: return "httpTooManyRedirects"
        case .userAuthenticationRequired: return "userAuthenticationRequired"
        case .secureConnectionFailed: return "secureConnectionFailed"
        case .serverCertificateUntrusted: return "serverCertificateUntrusted"
        case .serverCertificateHasUnknownRoot: return "serverCertificateHasUnknownRoot"
        case .serverCertificateHasBadDate: return "serverCertificateHasBadDate"
        case .serverCertificateNotYetValid: return "serverCertificateNotYetValid"
        case .unknown: return "unknown"
        default: return "code \(code.rawValue)"
        }
    }

    /// A `URLError` in an error's stored values (an enum case's payload, a struct's
    /// property), up to `depth` levels down.
    static func wrappedURLError(in value: Any, depth: Int) -> URLError? {
        guard depth > 0 else { return nil }
        for child in Mirror(reflecting: value).children {
            if let urlError = child.value as? URLError { return urlError }
            if let found = wrappedURLError(in: child.value, depth: depth - 1) { return found }
        }
        return nil
    }

    /// `pages[3].price` for a coding path.
    static func jsonPath(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the top level" }
        var text = ""
        for key in path {
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return text
    }
}
