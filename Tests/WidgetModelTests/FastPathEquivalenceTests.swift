import Foundation
import StrictJSON
import Testing
@testable import WidgetModel

/// The allocation-free paths of issue 7 give the same results as the code they replaced:
/// `RFC3339.format` against a frozen copy of its former `String`-building version, the
/// canonical date bytes against `JSONWriter.string(format(date))`, and dates read in
/// place against the same dates read through an escaped string.
@Suite struct FastPathEquivalenceTests {
    /// `RFC3339.format` as it was before it wrote into a stack buffer (frozen copy).
    static func formerFormat(_ date: Date) -> String {
        var t = date.timeIntervalSince1970
        if !t.isFinite || date < RFC3339.earliest { t = RFC3339.earliest.timeIntervalSince1970 }
        if date >= RFC3339.end { t = RFC3339.end.timeIntervalSince1970 - 1 }
        let microseconds = Int64((t * 1_000_000).rounded())
        func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
            let (q, r) = (a / b, a % b)
            return r < 0 ? (q - 1, r + b) : (q, r)
        }
        func append(_ value: Int, width: Int, to out: inout String) {
            let digits = String(value)
            if digits.utf8.count < width { out.append(String(repeating: "0", count: width - digits.utf8.count)) }
            out.append(digits)
        }
        let (seconds, fraction) = floorDivide(microseconds, 1_000_000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = RFC3339.civilFromDays(Int(days))
        var out = ""
        append(year, width: 4, to: &out); out.append("-")
        append(month, width: 2, to: &out); out.append("-")
        append(day, width: 2, to: &out); out.append("T")
        append(Int(secondOfDay / 3600), width: 2, to: &out); out.append(":")
        append(Int(secondOfDay / 60 % 60), width: 2, to: &out); out.append(":")
        append(Int(secondOfDay % 60), width: 2, to: &out)
        if fraction != 0 {
            var digits = Int(fraction)
            var width = 6
            while digits % 10 == 0 { digits /= 10; width -= 1 }
            out.append(".")
            append(digits, width: width, to: &out)
        }
        out.append("Z")
        return out
    }

    /// Dates across the whole range, at whole seconds and with every fraction length,
    /// plus the edges and values outside the range (clamped).
    static func dates() -> [Date] {
        var generator = SystemRandomNumberGenerator()
        let low = RFC3339.earliest.timeIntervalSince1970, high = RFC3339.end.timeIntervalSince1970
        var dates = [RFC3339.earliest, RFC3339.end, Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.5),
                     Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: .infinity),
                     Date(timeIntervalSince1970: low - 1e6), Date(timeIntervalSince1970: high + 1e6),
                     Date(timeIntervalSince1970: high - 0.0000001)]
        for index in 0..<20_000 {
            let seconds = Double(Int64.random(in: Int64(low)..<Int64(high), using: &generator))
            let scale = [1.0, 10, 100, 1_000, 10_000, 100_000, 1_000_000][index % 7]
            dates.append(Date(timeIntervalSince1970: seconds + Double(Int.random(in: 0..<Int(scale), using: &generator)) / scale))
        }
        return dates
    }

    @Test func formatMatchesItsFormerVersion() {
        for date in Self.dates() {
            #expect(RFC3339.format(date) == Self.formerFormat(date), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func canonicalDateBytesMatchTheEscapingWriter() {
        for date in Self.dates().prefix(2_000) {
            var viaString = JSONWriter(), direct = JSONWriter()
            viaString.string(RFC3339.format(date))
            RFC3339.write(date, to: &direct)
            let expected = [UInt8](unsafeUninitializedCapacity: viaString.count) { buffer, count in
                var writer = JSONWriter(into: UnsafeMutableRawBufferPointer(buffer))
                writer.string(RFC3339.format(date))
                count = writer.count
            }
            let written = [UInt8](unsafeUninitializedCapacity: direct.count) { buffer, count in
                var writer = JSONWriter(into: UnsafeMutableRawBufferPointer(buffer))
                RFC3339.write(date, to: &writer)
                count = writer.count
            }
            #expect(written == expected)
        }
    }

    /// A date read in place equals the same text read through escapes (the general path),
    /// and a bad date still fails with the general path's reason and position.
    @Test(arguments: ["2026-01-31T08:00:00Z", "2026-01-31t08:00:00.123456789+05:30", "0000-01-01T00:00:00Z"])
    func datesReadInPlaceMatchTheGeneralPath(text: String) throws {
        let plain = #"{"date":"\#(text)","fields":{}}"#
        let escaped = #"{"date":"\#(text.replacingOccurrences(of: "T", with: "\\u0054").replacingOccurrences(of: "t", with: "\\u0074"))","fields":{}}"#
        let first = try Array(plain.utf8).withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            return try Entry.read(from: &reader)
        }
        let second = try Array(escaped.utf8).withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            return try Entry.read(from: &reader)
        }
        #expect(first == second)
        #expect(first.date == (try RFC3339.parse(text)))
    }

    @Test(arguments: ["2026-13-01T00:00:00Z", "2026-01-31", "2026-01-31T08:00:00.1234567890Z", "2026-02-30T00:00:00Z"])
    func badDatesKeepTheirReasons(text: String) throws {
        let document = Array(#"{"date":"\#(text)","fields":{}}"#.utf8)
        let error = document.withUnsafeBytes { bytes -> JSONReadError? in
            var reader = JSONReader(bytes)
            do throws(JSONReadError) { _ = try Entry.read(from: &reader); return nil } catch { return error }
        }
        let expected: String
        do { _ = try RFC3339.parse(text); expected = "" } catch { expected = error.description }
        #expect(error?.message == expected)
        #expect(error?.offset == 8)
    }
}
