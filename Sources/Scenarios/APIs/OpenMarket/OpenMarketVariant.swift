import Foundation

/// The versions of the Open Market training server clients were written against.
public enum OpenMarketVariant: String, Sendable, CaseIterable {
    /// January 2022: dates `2022-01-04T00:00:00.00`, create key `descriptions`,
    /// secret at `POST /api/products/{id}/secret`, delete at `DELETE /api/products/{id}/{secret}`.
    case jan2022 = "openmarket-2022-01"
    /// The older handout fixture's date format `2021-12-29 00:00:00.000`, which clients
    /// written for the live server fail to decode. Otherwise as January 2022.
    case legacyDates = "openmarket-legacy-dates"
    /// Late 2022: create/update key `description`, `POST /api/products/{id}/archived`
    /// answers a delete URI, `DELETE /api/products/{uri}` deletes.
    case late2022 = "openmarket-2022-late"

    /// The request key for the product description.
    public var descriptionKey: String { self == .late2022 ? "description" : "descriptions" }

    /// The training server's zone: Korea Standard Time (UTC+9, no daylight saving).
    static let offsetSeconds = 9 * 3600

    /// Formats dates the way this server version sent them.
    public func format(_ date: Date) -> String {
        let t = CivilTime(date, offsetSeconds: Self.offsetSeconds)
        let day = "\(padded(t.year, 4))-\(padded(t.month, 2))-\(padded(t.day, 2))"
        let time = "\(padded(t.hour, 2)):\(padded(t.minute, 2)):\(padded(t.second, 2))"
        switch self {
        case .legacyDates: return "\(day) \(time).\(padded(t.millisecond / 10 * 10, 3))"
        case .jan2022, .late2022: return "\(day)T\(time).\(padded(t.millisecond / 10, 2))"
        }
    }

    /// Parses the canonical fixture format `2022-01-04T00:00:00.00` (fraction optional, KST).
    public static func parseFixtureDate(_ text: String) -> Date? {
        let halves = text.split(separator: "T", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let day = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        let secondsAndFraction = halves[1].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let clock = secondsAndFraction[0].split(separator: ":", omittingEmptySubsequences: false)
        guard day.count == 3, clock.count == 3, day[0].count == 4, ([day[1], day[2]] + clock).allSatisfy({ $0.count == 2 }),
              let year = Int(day[0]), let month = Int(day[1]), let dayOfMonth = Int(day[2]),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2])
        else { return nil }
        var millisecond = 0
        if secondsAndFraction.count == 2 {
            let fraction = secondsAndFraction[1]
            guard (1...3).contains(fraction.count), fraction.allSatisfy(\.isNumber),
                  let value = Int(fraction + String(repeating: "0", count: 3 - fraction.count)) else { return nil }
            millisecond = value
        }
        return CivilTime.date(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute, second: second,
                              millisecond: millisecond, offsetSeconds: offsetSeconds)
    }
}
