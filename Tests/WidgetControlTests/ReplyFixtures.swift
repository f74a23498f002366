/// Canned daemon replies in the decided wire shapes.
enum Fixtures {
    static let settings = #"{"lockScreenWidgetsAccess":false,"hideSensitiveComplications":"selected","hiddenComplications":["com.example.bank/balance"]}"#

    static let status = #"{"state":"locked","passcodeSet":true,"classes":["#
        + #"{"class":"complete","keyAvailable":false},{"class":"completeUnlessOpen","keyAvailable":false},"#
        + #"{"class":"completeUntilFirstUserAuthentication","keyAvailable":true},{"class":"none","keyAvailable":true}],"#
        + #""failedAttempts":5,"retryAfter":42.5,"settings":\#(settings)}"#

    static let widgets = #"{"widgets":[{"widget":"com.example.weather/forecast#lock-1","provider":"com.example.weather","#
        + #""kind":"forecast","family":"accessoryRectangular","class":"complete","generation":3},"#
        + #"{"widget":"com.example.bank/balance","provider":"com.example.bank","kind":"balance","class":"none","generation":12}]}"#

    /// A locked Lock Screen widget, redacted for privacy: the temperature is sensitive.
    static let redactedPresentation = #"{"presentation":{"widget":"com.example.weather/forecast","surface":"lockScreen","#
        + #""mode":"redacted","reasons":["privacy"],"luminanceReduced":false,"stale":false,"#
        + #""entry":{"date":"2026-11-29T13:00:00Z","fields":{"city":{"value":"Paris"},"#
        + #""summary":{"value":"Cloudy skies","redacted":true},"temperature":{"value":null,"redacted":true}}},"#
        + #""validUntil":"2026-11-29T14:00:00Z"}}"#

    static let contentPresentation = #"{"presentation":{"widget":"a/b","surface":"alwaysOn","mode":"content","#
        + #""reasons":["invalidated"],"luminanceReduced":true,"stale":true,"entry":{"fields":{"n":{"value":21.0}}}}}"#

    static let timeline = #"{"family":"systemSmall","entries":[{"date":"2026-11-29T13:00:00Z","#
        + #""relevance":{"score":0.5,"duration":3600},"fields":{"city":{"value":"Paris","privacy":"public"},"#
        + #""temperature":{"value":21,"privacy":"sensitive"}}}],"policy":{"kind":"atEnd"},"generation":4}"#
}
