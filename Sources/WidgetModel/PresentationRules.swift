import FoundationEssentials

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
    /// 5. `locked` on `lockScreen` without `lockScreenWidgetsAccess`, or with the widget in
    ///    `hiddenLockScreenWidgets` → redacted.
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
            if context.surface == .lockScreen && context.settings.hidesOnLockScreen(context.widget) {
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
    /// A placeholder is the same whatever the timeline behind it: it stands in for
    /// content the host may not see (or that cannot be read), and anything derived from
    /// that content's dates — `stale`, the `invalidated` reason, `validUntil` — would
    /// tell the host when a secret timeline ends. Staleness is shown with entries only.
    ///
    /// - Parameters:
    ///   - timeline: the decrypted timeline, or nil when none is stored or it cannot be
    ///     read (rule 4 → placeholder). A timeline without entries is shown as a placeholder too.
    ///     Not looked at when `decision` is `.placeholder`.
    ///   - placeholder: the provider's placeholder, if any; its values also stand in for
    ///     redacted fields.
    ///   - reloadDue: from the class-`none` metadata, so staleness is known while locked
    ///     (shown on redacted entries, never on a placeholder).
    ///   - state: the device's lock state, which decides the actions' availability (§13).
    ///   - staleAfter: how long a due reload may go unanswered before the content is
    ///     `invalidated` (`[Daemon] StaleAfterSec=`).
    ///   - actionPending: an action performed on the widget waits for its provider's new
    ///     timeline: the content is `invalidated` until it comes.
    public static func present(
        _ decision: PresentationDecision, widget: WidgetID, timeline: Timeline?, placeholder: Placeholder?,
        reloadDue: Date?, surface: Surface, now: Date, state: DeviceState, staleAfter: TimeInterval = defaultStaleAfter,
        actionPending: Bool = false
    ) -> Presentation {
        present(
            decision, widget: widget, excerpt: decision.needsTimeline ? timeline.map { TimelineExcerpt($0, at: now) } : nil,
            placeholder: placeholder, reloadDue: reloadDue, surface: surface, now: now, state: state, staleAfter: staleAfter,
            actionPending: actionPending)
    }

    /// `[Daemon] StaleAfterSec=`'s default: a reload unanswered for an hour.
    public static let defaultStaleAfter: TimeInterval = 3600

    /// Phase 2 from what it reads of the timeline: its excerpt at `now` (the current
    /// entry and every entry's date), which must ``TimelineExcerpt/covers(_:)`` `now`.
    /// The same presentation as from the whole timeline.
    public static func present(
        _ decision: PresentationDecision, widget: WidgetID, excerpt: TimelineExcerpt?, placeholder: Placeholder?,
        reloadDue: Date?, surface: Surface, now: Date, state: DeviceState, staleAfter: TimeInterval = defaultStaleAfter,
        actionPending: Bool = false
    ) -> Presentation {
        let standIns = placeholder?.fields ?? FieldList()
        let standInActions = placeholder?.actions ?? []

        var mode = PresentationMode.placeholder
        var shown: PresentedEntry?
        var actions: [PresentedAction] = []
        var validUntil: Date?
        if decision.needsTimeline, let timeline = excerpt, let current = timeline.entry {
            assert(timeline.covers(now), "an excerpt made for another entry than the one current now")
            let redact = decision == .redacted
            mode = redact ? .redacted : .content
            // The entry's fields in its order; a redacted one keeps its place.
            var shownFields = FieldList<PresentedField>()
            for (name, field) in current.fields {
                // A replaced field is built from the stand-in alone, never from `field`.
                shownFields.append(
                    name,
                    redact && field.privacy == .sensitive
                        ? .replaced(by: standIns[name], role: field.role, style: field.style) : .shown(field))
            }
            shown = PresentedEntry(date: current.date, relevance: current.relevance, fields: shownFields)
            actions = current.actions.map { action in
                presented(action, redacted: redact && action.privacy == .sensitive, standIns: standInActions, state: state, surface: surface)
            }
            validUntil = timeline.validUntil(at: now)
        }

        var reasons: [PresentationReason] = switch mode {
        case .placeholder: [.placeholder]
        case .redacted: [.privacy]
        case .content: []
        }
        let stale = mode != .placeholder && (reloadDue.map { now >= $0 } ?? false)
        // iOS 17's meaning (DESIGN §4): the content is being updated, because an action
        // waits for its answer or a due reload has gone unanswered for `staleAfter`. A
        // due reload alone does not make content wrong.
        let invalidated = mode != .placeholder
            && (actionPending || (reloadDue.map { now >= $0.addingTimeInterval(staleAfter) } ?? false))
        if invalidated { reasons.append(.invalidated) }
        let entry = shown ?? PresentedEntry(date: nil, relevance: nil, fields: placeholderFields(standIns))
        if shown == nil {
            actions = standInActions.map { action in
                presented(action, redacted: action.privacy == .sensitive, standIns: standInActions, state: state, surface: surface)
            }
        }

        return Presentation(
            widget: widget, surface: surface, mode: mode, reasons: reasons,
            luminanceReduced: surface == .alwaysOn, stale: stale, entry: entry, validUntil: validUntil, actions: actions)
    }

    /// Whether an action of `policy` may run now without an unlock (DESIGN §13's table):
    /// `alwaysAllowed` always; the others only while unlocked, and
    /// `requiresLocalDeviceAuthentication` never from a `remote` surface.
    public static func mayRun(_ policy: AuthenticationPolicy, state: DeviceState, surface: Surface) -> Bool {
        switch policy {
        case .alwaysAllowed: true
        case .requiresAuthentication: state == .unlocked
        case .requiresLocalDeviceAuthentication: state == .unlocked && surface != .remote
        }
    }

    /// An action as shown: its availability now, and its title replaced by the stand-in's
    /// (the placeholder's action of the same id, or null) when `redacted`.
    private static func presented(
        _ action: WidgetAction, redacted: Bool, standIns: [WidgetAction], state: DeviceState, surface: Surface
    ) -> PresentedAction {
        let available = mayRun(action.authentication, state: state, surface: surface)
        // An unlock cannot help a local-device action on a remote surface: nothing to wait for.
        let unlockHelps = !(action.authentication == .requiresLocalDeviceAuthentication && surface == .remote)
        let title = redacted ? standIns.first(where: { $0.id == action.id })?.title : action.title
        return PresentedAction(
            id: action.id, title: title, icon: action.icon, kind: action.kind, isOn: action.isOn,
            authentication: action.authentication, available: available,
            requires: available || !unlockHelps ? nil : PresentedAction.unlock, redacted: redacted)
    }

    /// When `presentation` changes by itself: the next entry's date or the reload falling
    /// due, whichever comes first; `nil` if never. The daemon wakes its watches and ends
    /// a cached reply's validity then.
    ///
    /// A placeholder never changes by itself: a wake-up, a re-sent `Watch` or a cache
    /// miss timed by the hidden timeline's dates would tell those dates. It changes when
    /// something the host may know changes (a write, the lock state, the settings).
    ///
    /// - Parameter timeline: the same timeline `present` was given (whose reload date is
    ///   the one the metadata holds: both are written together).
    public static func nextChange(
        of presentation: Presentation, timeline: Timeline?, now: Date, staleAfter: TimeInterval = defaultStaleAfter
    ) -> Date? {
        nextChange(of: presentation, excerpt: timeline.map { TimelineExcerpt($0, at: now) }, now: now, staleAfter: staleAfter)
    }

    /// `nextChange(of:timeline:now:)` from the excerpt `present` was given.
    ///
    /// With `staleAfter`, the instant a due reload left unanswered makes the content
    /// `invalidated` counts too.
    public static func nextChange(
        of presentation: Presentation, excerpt: TimelineExcerpt?, now: Date, staleAfter: TimeInterval = defaultStaleAfter
    ) -> Date? {
        guard presentation.mode != .placeholder, let excerpt else { return nil }
        let invalidation = excerpt.reloadDue.map { $0.addingTimeInterval(staleAfter) }.flatMap { $0 > now ? $0 : nil }
        return [excerpt.nextChange(after: now), invalidation].compactMap { $0 }.min()
    }

    /// Both phases at once, for tests and callers that already hold the timeline.
    /// The reload date is the timeline's own.
    public static func presentation(
        for context: PresentationContext, timeline: Timeline?, placeholder: Placeholder?, now: Date
    ) throws(UnavailableOnSurface) -> Presentation {
        let decision = try decide(context)
        return present(
            decision, widget: context.widget, timeline: decision.needsTimeline ? timeline : nil,
            placeholder: placeholder, reloadDue: timeline?.reloadDue, surface: context.surface, now: now,
            state: context.state)
    }

    /// The placeholder's fields as shown, in its order: `public` ones as they are, the
    /// rest marked redacted.
    private static func placeholderFields(_ fields: FieldList<Field>) -> FieldList<PresentedField> {
        fields.mapValues { field in
            field.privacy == .public ? .shown(field) : .replaced(by: field, role: field.role, style: field.style)
        }
    }
}
