import Foundation

/// Image formats recognised by their leading bytes, never by file name.
package enum ImageFormat: String, Sendable, CaseIterable {
    /// PNG, `image/png`.
    case png
    /// JPEG, `image/jpeg`.
    case jpeg

    /// The format whose signature `data` starts with; nil when it is neither PNG nor JPEG.
    public init?(sniffing data: Data) {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if data.count >= 8, data.prefix(8).elementsEqual(png) {
            self = .png
        } else if data.count >= 4, data.prefix(3).elementsEqual([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else {
            return nil
        }
    }

    /// The format's media type, such as `image/png`.
    public var mimeType: String {
        switch self {
        case .png: return "image/png"
        case .jpeg: return "image/jpeg"
        }
    }
}
