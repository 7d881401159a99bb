import Foundation

/// IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
package enum HTTPDate {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `date` in IMF-fixdate, whole seconds (the fraction is dropped).
    public static func format(_ date: Date) -> String {
        let t = CivilTime(date)
        return "\(weekdays[t.weekday]), \(padded(t.day, 2)) \(months[t.month - 1]) \(padded(t.year, 4)) "
            + "\(padded(t.hour, 2)):\(padded(t.minute, 2)):\(padded(t.second, 2)) GMT"
    }

    /// Parses IMF-fixdate; nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        return CivilTime.date(year: year, month: month + 1, day: day, hour: clock[0], minute: clock[1], second: clock[2])
    }
}
