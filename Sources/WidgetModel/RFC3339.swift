import FoundationEssentials
import StrictJSON

/// A strict, pure RFC 3339 date-time parser and formatter.
///
/// Written by hand rather than with `ISO8601DateFormatter` so that what is accepted
/// is exactly RFC 3339's `date-time` (no week dates, no missing offsets, no locale),
/// and so that parsing costs no allocation beyond the input it is given.
///
/// Parsing accepts `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds (1–9 digits),
/// and an offset `Z` or `±hh:mm`; `T` and `Z` may be lower case, as the RFC allows.
/// Leap seconds (`:60`) are rejected: `Date` cannot represent them.
/// Formatting writes UTC with `Z`, and fractional seconds (to the microsecond, trailing
/// zeros trimmed) only when they are not zero.
public enum RFC3339 {
    /// Why a text is not an RFC 3339 date-time. Never quotes the text itself.
    public enum Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// The text does not have the shape `YYYY-MM-DDTHH:MM:SS[.f][Z|±hh:mm]`.
        case malformed
        /// A component is outside its range (named: `month`, `day`, `hour`, …).
        case outOfRange(String)
        /// More than nine fractional digits: finer than `Date` can hold.
        case tooPrecise

        /// A sentence that says what is wrong without repeating the input.
        public var description: String {
            switch self {
            case .malformed: "is not an RFC 3339 date-time such as 2026-01-31T08:00:00Z"
            case .outOfRange(let component): "has a \(component) out of range"
            case .tooPrecise: "has more than 9 fractional digits"
            }
        }
    }

    /// The earliest date that can be written: 0000-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: Double(daysFromCivil(year: 0, month: 1, day: 1) * 86_400))
    /// The first instant that can no longer be written: 10000-01-01T00:00:00Z.
    public static let end = Date(timeIntervalSince1970: Double(daysFromCivil(year: 10_000, month: 1, day: 1) * 86_400))

    /// Whether `format` can write `date` faithfully (a finite date in years 0000–9999).
    public static func isRepresentable(_ date: Date) -> Bool {
        let t = date.timeIntervalSince1970
        return t.isFinite && date >= earliest && date < end
    }

    /// Parses an RFC 3339 `date-time`.
    public static func parse(_ text: String) throws(Invalid) -> Date {
        var copy = text
        // `withUTF8` only rethrows untyped errors; carry the typed one out in a Result.
        let result = copy.withUTF8 { bytes in Result { () throws(Invalid) in try parse(bytes) } }
        return try result.get()
    }

    /// Parses an RFC 3339 `date-time` from UTF-8 bytes.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Invalid) -> Date {
        var cursor = Cursor(bytes: bytes)
        let year = try cursor.digits(4)
        try cursor.expect(UInt8(ascii: "-"))
        let month = try cursor.digits(2)
        try cursor.expect(UInt8(ascii: "-"))
        let day = try cursor.digits(2)
        try cursor.expect(UInt8(ascii: "T"), or: UInt8(ascii: "t"))
        let hour = try cursor.digits(2)
        try cursor.expect(UInt8(ascii: ":"))
        let minute = try cursor.digits(2)
        try cursor.expect(UInt8(ascii: ":"))
        let second = try cursor.digits(2)

        var nanoseconds = 0
        if cursor.peek == UInt8(ascii: ".") {
            cursor.advance()
            var count = 0
            while let byte = cursor.peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                count += 1
                guard count <= 9 else { throw .tooPrecise }
                nanoseconds = nanoseconds * 10 + Int(byte - UInt8(ascii: "0"))
                cursor.advance()
            }
            guard count > 0 else { throw .malformed }
            for _ in count..<9 { nanoseconds *= 10 }
        }

        var offsetSeconds = 0
        switch cursor.peek {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            cursor.advance()
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = cursor.peek == UInt8(ascii: "-") ? -1 : 1
            cursor.advance()
            let offsetHour = try cursor.digits(2)
            try cursor.expect(UInt8(ascii: ":"))
            let offsetMinute = try cursor.digits(2)
            guard offsetHour <= 23 else { throw .outOfRange("offset hour") }
            guard offsetMinute <= 59 else { throw .outOfRange("offset minute") }
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
        default:
            throw .malformed
        }
        guard cursor.atEnd else { throw .malformed }

        guard (1...12).contains(month) else { throw .outOfRange("month") }
        guard day >= 1, day <= daysInMonth(year: year, month: month) else { throw .outOfRange("day") }
        guard hour <= 23 else { throw .outOfRange("hour") }
        guard minute <= 59 else { throw .outOfRange("minute") }
        guard second <= 59 else { throw .outOfRange("second") }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// Formats a date as UTC, e.g. `2026-01-31T08:00:00Z` or `2026-01-31T08:00:00.25Z`.
    ///
    /// Dates outside `isRepresentable` are clamped to its range (validation rejects
    /// them before they are stored, so this only keeps the function total).
    public static func format(_ date: Date) -> String {
        withFormatted(date) { String(decoding: $0, as: UTF8.self) }
    }

    /// The longest text `format` writes: `2026-01-31T08:00:00.123456Z`.
    static let maximumLength = 27

    /// Calls `body` with the ASCII bytes `format` returns, built on the stack (and zeroed
    /// after): the canonical writer copies them straight into its buffer, with no
    /// `String` per date.
    static func withFormatted<R>(_ date: Date, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var t = date.timeIntervalSince1970
        if !t.isFinite || date < earliest { t = earliest.timeIntervalSince1970 }
        if date >= end { t = end.timeIntervalSince1970 - 1 }
        let microseconds = Int64((t * 1_000_000).rounded())
        let (seconds, fraction) = floorDivide(microseconds, 1_000_000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civilFromDays(Int(days))
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
            var count = 0
            // Each value fits its width: the year is clamped to 0000–9999 above, and the
            // fraction has at most `width` digits once its trailing zeros are trimmed.
            func put(_ value: Int, width: Int) {
                var rest = value
                for index in stride(from: count + width - 1, through: count, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                count += width
            }
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            put(year, width: 4)
            put(UInt8(ascii: "-"))
            put(month, width: 2)
            put(UInt8(ascii: "-"))
            put(day, width: 2)
            put(UInt8(ascii: "T"))
            put(Int(secondOfDay / 3600), width: 2)
            put(UInt8(ascii: ":"))
            put(Int(secondOfDay / 60 % 60), width: 2)
            put(UInt8(ascii: ":"))
            put(Int(secondOfDay % 60), width: 2)
            if fraction != 0 {
                var digits = Int(fraction)
                var width = 6
                while digits % 10 == 0 { digits /= 10; width -= 1 }
                put(UInt8(ascii: "."))
                put(digits, width: width)
            }
            put(UInt8(ascii: "Z"))
            defer { SecretWipe.zero(UnsafeMutableRawBufferPointer(buffer)) }
            return body(UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, Howard Hinnant's algorithms)

    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 for a civil date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a count of days since 1970-01-01.
    static func civilFromDays(_ count: Int) -> (year: Int, month: Int, day: Int) {
        let z = count + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// Reads fixed-width ASCII fields from the input.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
        var atEnd: Bool { index == bytes.count }

        mutating func advance() { index += 1 }

        mutating func digits(_ count: Int) throws(Invalid) -> Int {
            var value = 0
            for _ in 0..<count {
                guard let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                    throw .malformed
                }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                advance()
            }
            return value
        }

        mutating func expect(_ byte: UInt8, or alternative: UInt8? = nil) throws(Invalid) {
            guard let found = peek, found == byte || found == alternative else { throw .malformed }
            advance()
        }
    }
}
