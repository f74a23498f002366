#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The decision of DESIGN §4: what a host is shown, in two phases so that the daemon
/// decrypts nothing it will not show.
///
/// 1. `decide` applies rules 1–3 and 5–7 from facts known without any key.
/// 2. `present` applies rule 4 (no readable timeline → placeholder) and builds the
///    presentation, replacing what the decision hides.
public enum PresentationRules {
    /// Phase 1: rules 1–3 and 5–7, first match wins.
    ///
    /// 1. `remote` with class `complete` or `completeUnlessOpen` → `UnavailableOnSurface`.
    /// 2. `beforeFirstUnlock` → placeholder, whatever the class.
    /// 3. `locked` with class `complete`, or with `completeUnlessOpen` and a passcode → placeholder.
    /// 5. `locked` on `lockScreen` without `lockScreenWidgetsAccess` → redacted.
    /// 6. `alwaysOn` with the widget hidden by `hideSensitiveComplications` → redacted.
    /// 7. otherwise → content.
    public static func decide(_ context: PresentationContext) throws(UnavailableOnSurface) -> PresentationDecision {
        let remoteForbidden: Bool
        switch context.protectionClass {
        case .complete, .completeUnlessOpen: remoteForbidden = true
        case .completeUntilFirstUserAuthentication, .none: remoteForbidden = false
        }
        if context.surface == .remote && remoteForbidden {
            throw UnavailableOnSurface(surface: context.surface)
        }

        switch context.state {
        case .beforeFirstUnlock:
            return .placeholder
        case .locked:
            switch context.protectionClass {
            case .complete:
                return .placeholder
            case .completeUnlessOpen where context.passcodeSet:
                return .placeholder
            case .completeUnlessOpen, .completeUntilFirstUserAuthentication, .none:
                break
            }
            if context.surface == .lockScreen && !context.settings.lockScreenWidgetsAccess {
                return .redacted
            }
        case .unlocked:
            break
        }

        if context.surface == .alwaysOn && context.settings.hides(context.widget) {
            return .redacted
        }
        return .content
    }

    /// Phase 2: rule 4 and the presentation itself.
    ///
    /// - Parameters:
    ///   - timeline: the decrypted timeline, or nil when none is stored or it cannot be
    ///     read (rule 4 → placeholder). A timeline without entries is shown as a placeholder too.
    ///     Not looked at when `decision` is `.placeholder`.
    ///   - placeholder: the provider's placeholder, if any; its values also stand in for
    ///     redacted fields.
    ///   - reloadDue: from the class-`none` metadata, so staleness is known while locked.
    public static func present(
        _ decision: PresentationDecision, widget: WidgetID, timeline: Timeline?, placeholder: Placeholder?,
        reloadDue: Date?, surface: Surface, now: Date
    ) -> Presentation {
        let stale = reloadDue.map { now >= $0 } ?? false
        let standIns = placeholder?.fields ?? [:]

        var mode = PresentationMode.placeholder
        var shown: PresentedEntry?
        var validUntil: Date?
        if decision.needsTimeline, let timeline, let current = timeline.currentEntry(at: now) {
            let redact = decision == .redacted
            mode = redact ? .redacted : .content
            var fields: [String: PresentedField] = [:]
            for (name, field) in current.fields {
                // A replaced field is built from the stand-in alone, never from `field`.
                fields[name] = redact && field.privacy == .sensitive ? .replaced(by: standIns[name]?.value) : .shown(field)
            }
            shown = PresentedEntry(date: current.date, relevance: current.relevance, fields: fields)
            validUntil = timeline.validUntil(at: now)
        }

        var reasons: [PresentationReason] = switch mode {
        case .placeholder: [.placeholder]
        case .redacted: [.privacy]
        case .content: []
        }
        if stale { reasons.append(.invalidated) }
        let entry = shown ?? PresentedEntry(date: nil, relevance: nil, fields: placeholderFields(standIns))

        return Presentation(
            widget: widget, surface: surface, mode: mode, reasons: reasons,
            luminanceReduced: surface == .alwaysOn, stale: stale, entry: entry, validUntil: validUntil)
    }

    /// Both phases at once, for tests and callers that already hold the timeline.
    /// The reload date is the timeline's own.
    public static func presentation(
        for context: PresentationContext, timeline: Timeline?, placeholder: Placeholder?, now: Date
    ) throws(UnavailableOnSurface) -> Presentation {
        let decision = try decide(context)
        return present(
            decision, widget: context.widget, timeline: decision.needsTimeline ? timeline : nil,
            placeholder: placeholder, reloadDue: timeline?.reloadDue, surface: context.surface, now: now)
    }

    /// The placeholder's fields as shown: `public` ones as they are, the rest marked redacted.
    private static func placeholderFields(_ fields: [String: Field]) -> [String: PresentedField] {
        fields.mapValues { field in
            field.privacy == .public ? .shown(field) : .replaced(by: field.value)
        }
    }
}
