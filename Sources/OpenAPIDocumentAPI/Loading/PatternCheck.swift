import Foundation

/// Whether a `pattern` compiles as the validator reads it (NSRegularExpression).
enum PatternCheck {
    static func compiles(_ pattern: String) -> Bool {
        (try? NSRegularExpression(pattern: pattern)) != nil
    }
}
