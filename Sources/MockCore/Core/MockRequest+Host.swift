extension MockRequest {
    /// Whether `host` (a `Host` header's value, port included) is one a base URL can be
    /// built on: 1 to 255 bytes of ASCII letters, digits and `.`, `-`, `:`, `_`, `[`, `]`,
    /// so nothing in it can end the URL's authority or add a path, query or user.
    /// Transports check a client's `Host` with it before they build `baseURL`; the HAR
    /// import checks a capture's hosts with it.
    package static func isPlainHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
                    || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "_")
            }
    }
}
