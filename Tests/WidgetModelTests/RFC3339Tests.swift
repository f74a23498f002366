import Foundation
import Testing
@testable import WidgetModel

@Suite struct RFC3339Tests {
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", 0.0),
        ("2026-01-01T00:00:00Z", 1_767_225_600.0),
        ("2026-01-01T01:30:00+01:30", 1_767_225_600.0),
        ("2025-12-31T19:00:00-05:00", 1_767_225_600.0),
        ("2026-01-01t00:00:00z", 1_767_225_600.0),
        ("2026-01-01T00:00:00.5Z", 1_767_225_600.5),
        ("2026-01-01T00:00:00.000000001Z", 1_767_225_600.000000001),
        ("2024-02-29T12:00:00Z", 1_709_208_000.0),
        ("1969-12-31T23:59:59Z", -1.0),
        ("2000-01-01T00:00:00-00:00", 946_684_800.0),
    ])
    func parsesValidDateTimes(text: String, seconds: Double) throws {
        #expect(try RFC3339.parse(text).timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "", "2026-01-01", "2026-01-01T00:00:00", "2026-01-01 00:00:00Z", "2026-1-01T00:00:00Z",
        "2026-01-01T00:00Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+0100", "2026-01-01T00:00:00+01",
        "2026-01-01T00:00:00ZZ", " 2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z ", "+2026-01-01T00:00:00Z",
        "２０２６-01-01T00:00:00Z", "2026-01-01T00:00:00\u{0}Z", "1767225600",
    ])
    func rejectsMalformedText(text: String) {
        #expect(throws: RFC3339.Invalid.malformed) { try RFC3339.parse(text) }
    }

    @Test(arguments: [
        ("2026-13-01T00:00:00Z", "month"), ("2026-00-01T00:00:00Z", "month"),
        ("2025-02-29T00:00:00Z", "day"), ("1900-02-29T00:00:00Z", "day"), ("2026-04-31T00:00:00Z", "day"),
        ("2026-01-00T00:00:00Z", "day"), ("2026-01-01T24:00:00Z", "hour"), ("2026-01-01T00:60:00Z", "minute"),
        ("2026-12-31T23:59:60Z", "second"), ("2026-01-01T00:00:00+24:00", "offset hour"),
        ("2026-01-01T00:00:00+01:60", "offset minute"),
    ])
    func rejectsComponentsOutOfRange(text: String, component: String) {
        #expect(throws: RFC3339.Invalid.outOfRange(component)) { try RFC3339.parse(text) }
    }

    @Test func rejectsMoreThanNineFractionalDigits() {
        #expect(throws: RFC3339.Invalid.tooPrecise) { try RFC3339.parse("2026-01-01T00:00:00.1234567890Z") }
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (1_767_225_600.0, "2026-01-01T00:00:00Z"),
        (1_767_225_600.25, "2026-01-01T00:00:00.25Z"),
        (1_767_225_600.123456, "2026-01-01T00:00:00.123456Z"),
        (-0.5, "1969-12-31T23:59:59.5Z"),
        (951_782_400.0, "2000-02-29T00:00:00Z"),
    ])
    func formatsUTCWithFractionOnlyWhenNonZero(seconds: Double, text: String) {
        #expect(RFC3339.format(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test func formatThenParseIsIdentityToTheMicrosecond() throws {
        // Every day of a leap-year span, at varied times of day, both ways round.
        var seconds = -86_400.0 * 366 * 3
        while seconds < 86_400 * 366 * 60 {
            let date = Date(timeIntervalSince1970: seconds.rounded())
            #expect(try RFC3339.parse(RFC3339.format(date)) == date)
            seconds += 86_400 * 3.7 + 1234
        }
        let text = "2026-06-30T23:59:59.999999Z"
        #expect(RFC3339.format(try RFC3339.parse(text)) == text)
    }

    @Test func representableRangeIsYearsZeroToNineThousandNineHundredNinetyNine() throws {
        #expect(RFC3339.isRepresentable(try RFC3339.parse("0000-01-01T00:00:00Z")))
        #expect(RFC3339.isRepresentable(try RFC3339.parse("9999-12-31T23:59:59Z")))
        #expect(!RFC3339.isRepresentable(RFC3339.end))
        #expect(!RFC3339.isRepresentable(RFC3339.earliest.addingTimeInterval(-1)))
        #expect(!RFC3339.isRepresentable(Date(timeIntervalSince1970: .nan)))
        #expect(!RFC3339.isRepresentable(Date(timeIntervalSince1970: .infinity)))
        #expect(RFC3339.format(try RFC3339.parse("0000-01-01T00:00:00Z")) == "0000-01-01T00:00:00Z")
    }

    @Test func errorsNeverQuoteTheInput() {
        for text in ["2026-13-01T00:00:00Z", "garbage-secret", "2026-01-01T00:00:00.1234567890Z"] {
            do {
                _ = try RFC3339.parse(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(!error.description.contains(text))
            }
        }
    }
}
