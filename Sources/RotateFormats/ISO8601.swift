/// Parses ISO 8601 / RFC 3339 timestamps to seconds since 1970-01-01T00:00:00Z, without
/// Foundation (deterministic, locale-free).
///
/// Accepts `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds, and `Z`, `±HH:MM`, `±HHMM` or no
/// zone (read as UTC); a space may replace the `T`. Returns nil for anything else, including
/// out-of-range fields.
package enum ISO8601 {
    package static func seconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let b = bytes[i]
                guard b >= 48 && b <= 57 else { return nil }
                value = value * 10 + Int(b - 48)
                i += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else { return nil }
        guard i < bytes.count, bytes[i] == 0x54 || bytes[i] == 0x74 || bytes[i] == 0x20 else { return nil }
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else { return nil }
        var fraction = 0.0
        if i < bytes.count, bytes[i] == 0x2E || bytes[i] == 0x2C {
            i += 1
            var scale = 0.1
            let start = i
            while i < bytes.count, bytes[i] >= 48 && bytes[i] <= 57 {
                fraction += Double(bytes[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offsetSeconds = 0
        if i < bytes.count {
            if bytes[i] == 0x5A || bytes[i] == 0x7A {
                i += 1
            } else if bytes[i] == 0x2B || bytes[i] == 0x2D {
                let sign = bytes[i] == 0x2D ? -1 : 1
                i += 1
                guard let hours = digits(2) else { return nil }
                _ = expect(0x3A)
                guard let minutes = digits(2), hours <= 23, minutes <= 59 else { return nil }
                offsetSeconds = sign * (hours * 3_600 + minutes * 60)
            }
        }
        guard i == bytes.count else { return nil }
        guard (1...12).contains(month), (1...daysInMonth(year, month)).contains(day),
            hour <= 23 || (hour == 24 && minute == 0 && second == 0), minute <= 59, second <= 60
        else { return nil }
        let days = daysFromCivil(year, month, day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds) + fraction
    }

    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for whole seconds since 1970-01-01T00:00:00Z (years 0...9999).
    package static func text(utcSeconds seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - "\(year)".count)) + "\(year)"
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`, the inverse of `daysFromCivil`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
