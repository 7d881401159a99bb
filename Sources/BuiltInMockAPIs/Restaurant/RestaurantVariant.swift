import Foundation
import MockCore

/// The versions of the Restaurant server clients were written against.
public enum RestaurantVariant: String, Sendable, CaseIterable {
    /// Apple's original server: categories as strings, absolute `image_url`,
    /// preparation time = the sum of the ordered items' estimated prep times.
    case original
    /// The community Vapor re-implementation: categories as `{id, name}` objects,
    /// relative `image_url`, preparation time = 1 + the sum of the items' prep times,
    /// images labelled `image/jpeg`.
    case community
    /// Another Vapor re-implementation (older textbook editions, port 8090): categories as
    /// strings, absolute `image_url` ending in `.jpg` (JPEG images), items carry
    /// `estimated_prep_time`, preparation time = 5 + the largest prep time.
    case vapor8090 = "vapor-8090"

    /// The image file name this variant puts in `image_url` for a fixture image.
    public func imageName(_ file: String) -> String {
        guard self == .vapor8090 else { return file }
        return (file as NSString).deletingPathExtension + ".jpg"
    }

    /// Minutes for an order of these items (one entry per ordered item, repeats counted).
    public func preparationTime(for prepTimes: [Int]) -> Int {
        let sum = prepTimes.reduce(0, +)
        switch self {
        case .original: return sum
        case .community: return 1 + sum
        case .vapor8090: return 5 + (prepTimes.max() ?? 0)
        }
    }
}
