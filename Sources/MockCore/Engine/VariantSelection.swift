/// Which version of each API to play, from `--variant` values such as `community` or
/// `openmarket-2022-late`: each value names a variant of one API, bare or prefixed with the
/// API's name (`restaurant-community`).
public struct VariantSelection: Sendable, Equatable {
    /// The variant chosen for each API named, by API name.
    public var chosen: [String: String]

    /// Makes a selection from variant names by API name; an API not named plays its first variant.
    public init(chosen: [String: String] = [:]) {
        self.chosen = chosen
    }

    /// Every name `--variant` accepts for `apis`.
    public static func names(_ apis: [any MockAPI]) -> [String] {
        apis.flatMap(\.variants)
    }

    /// Parses `--variant` values against `apis`; a later value for the same API wins.
    public static func parse(_ values: [String], apis: [any MockAPI]) throws(VariantError) -> VariantSelection {
        var selection = VariantSelection()
        for value in values {
            guard let (api, variant) = apis.lazy.compactMap({ api in api.variant(named: value).map { (api, $0) } }).first else {
                throw VariantError(value: value, known: names(apis))
            }
            selection.chosen[api.name] = variant
        }
        return selection
    }
}

/// A `--variant` value that names no variant of any API served.
public struct VariantError: Error, CustomStringConvertible {
    /// The value as given.
    public let value: String
    /// The names that would have been accepted.
    public let known: [String]

    /// Makes the error for `value`; `known` lists the names that would have been accepted.
    public init(value: String, known: [String]) {
        self.value = value
        self.known = known
    }

    /// `unknown variant "VALUE"; choose from: …`, listing the accepted names.
    public var description: String {
        "unknown variant \"\(value)\"; choose from: \(known.joined(separator: ", "))"
    }
}
