import Testing
@testable import WidgetControl

@Suite struct DurationTextTests {
    static let cases: [(Double, String)] = [
        (0, "0 s"), (1, "1 s"), (0.2, "1 s"), (59.1, "1 min"), (60, "1 min"), (252, "4 min 12 s"),
        (300, "5 min"), (3599, "59 min 59 s"), (3600, "1 h"), (3661, "1 h 1 min"), (-5, "0 s"),
    ]

    @Test(arguments: cases)
    func durationsRoundUpAndReadNaturally(seconds: Double, text: String) {
        #expect(DurationText.format(seconds: seconds) == text)
    }
}
