import Foundation

/// Calendar arithmetic for the proleptic Gregorian calendar at a fixed UTC offset,
/// without `Calendar` or `DateFormatter` (which are slow to create and not needed for
/// the fixed formats HTTP and the APIs use). Algorithms: H. Hinnant, "chrono-compatible
/// low-level date algorithms".
package struct CivilTime: Equatable, Sendable {
    public var year: Int, month: Int, day: Int
    public var hour: Int, minute: Int, second: Int
    /// 0...999
    public var millisecond: Int
    /// 0 = Sunday
    public var weekday: Int

    /// The calendar fields of `date` at `offsetSeconds` east of UTC.
    public init(_ date: Date, offsetSeconds: Int = 0) {
        let totalMilliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down)) + offsetSeconds * 1000
        let (days, msOfDay) = totalMilliseconds.floorDivided(by: 86_400_000)
        let (y, m, d) = CivilTime.civil(fromDays: days)
        year = y; month = m; day = d
        hour = msOfDay / 3_600_000
        minute = msOfDay / 60_000 % 60
        second = msOfDay / 1000 % 60
        millisecond = msOfDay % 1000
        weekday = (days % 7 + 11) % 7   // 1970-01-01 was a Thursday (4)
    }

    /// The instant of a civil time at `offsetSeconds` from UTC; nil for impossible dates.
    public static func date(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
                            millisecond: Int = 0, offsetSeconds: Int = 0) -> Date? {
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second), (0...999).contains(millisecond)
        else { return nil }
        let days = daysFromCivil(year, month, day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds) + Double(millisecond) / 1000
        return Date(timeIntervalSince1970: seconds)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int {
    func floorDivided(by divisor: Int) -> (quotient: Int, remainder: Int) {
        let q = self >= 0 ? self / divisor : (self - divisor + 1) / divisor
        return (q, self - q * divisor)
    }
}

/// Zero-padded decimal digits.
package func padded(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
