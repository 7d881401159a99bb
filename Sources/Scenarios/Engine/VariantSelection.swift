/// Which version of each API to play, from `--variant` values such as `community` or
/// `openmarket-2022-late`.
public struct VariantSelection: Sendable, Equatable {
    public var restaurant: RestaurantVariant
    public var openMarket: OpenMarketVariant

    public init(restaurant: RestaurantVariant = .original, openMarket: OpenMarketVariant = .jan2022) {
        self.restaurant = restaurant
        self.openMarket = openMarket
    }

    /// Every name `--variant` accepts.
    public static var names: [String] {
        RestaurantVariant.allCases.map(\.rawValue) + OpenMarketVariant.allCases.map(\.rawValue)
    }

    /// Parses `--variant` values; each names a variant of one API (`restaurant-` may prefix
    /// a Restaurant variant).
    public static func parse(_ values: [String]) throws(VariantError) -> VariantSelection {
        var selection = VariantSelection()
        for value in values {
            let name = value.lowercased()
            let bare = name.hasPrefix("restaurant-") ? String(name.dropFirst("restaurant-".count)) : name
            if let variant = RestaurantVariant(rawValue: bare) {
                selection.restaurant = variant
            } else if let variant = OpenMarketVariant(rawValue: name) {
                selection.openMarket = variant
            } else {
                throw VariantError(value: value)
            }
        }
        return selection
    }
}

public struct VariantError: Error, CustomStringConvertible {
    public let value: String
    public var description: String {
        "unknown variant \"\(value)\"; choose from: \(VariantSelection.names.joined(separator: ", "))"
    }
}
