/// The versions of the Restaurant server clients were written against.
public enum RestaurantVariant: String, Sendable, CaseIterable {
    /// Apple's original server: categories as strings, absolute `image_url`,
    /// preparation time = the sum of the ordered items' estimated prep times.
    case original
    /// The community Vapor re-implementation: categories as `{id, name}` objects,
    /// relative `image_url`, preparation time = 1 + the sum of the items' prep times,
    /// images labelled `image/jpeg`.
    case community

    /// Minutes for an order of these items (one entry per ordered item, repeats counted).
    public func preparationTime(for prepTimes: [Int]) -> Int {
        let sum = prepTimes.reduce(0, +)
        switch self {
        case .original: return sum
        case .community: return 1 + sum
        }
    }
}
