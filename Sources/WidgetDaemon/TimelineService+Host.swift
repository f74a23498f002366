import FoundationEssentials
import SecureMemory
import StoreLedger
import StrictJSON
import Varlink
import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// io.widgetd.Host: what the programs that draw widgets call (DESIGN §4, §5).
extension TimelineService {
    /// Every stored widget of `provider` (any, if absent) whose id sorts after `after`,
    /// in widget id order; with `limit`, at most that many and `next` while more remain.
    /// Widgets written or deleted between pages are seen or not by the pages still to
    /// come, as their ids fall; none is listed twice.
    func listWidgets(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let parameters = try call.decodedParameters(ListWidgetsParameters.self)
        if let provider = parameters.provider, !WidgetID.isValidProviderID(provider) {
            throw .invalidParameter("provider")
        }
        var after: WidgetID?
        if let text = parameters.after {
            do { after = try WidgetID(text) } catch { throw .invalidParameter("after") }
        }
        if let limit = parameters.limit, limit <= 0 { throw .invalidParameter("limit") }
        try whenIndexed(context, method: call.method) { [unowned self, after] (_) throws(ServiceError) in
            try listIndexedWidgets(parameters, after: after, context)
        }
    }

    /// Answers `ListWidgets` from the complete index.
    private func listIndexedWidgets(
        _ parameters: ListWidgetsParameters, after: WidgetID?, _ context: CallContext
    ) throws(ServiceError) {
        let info = { (metadata: TimelineMetadata) in
            WidgetInfo(
                widget: metadata.widget.description, provider: metadata.widget.provider, kind: metadata.widget.kind,
                family: metadata.family, class: metadata.protectionClass, generation: metadata.generation)
        }
        // One walk of the id order for both shapes: without a limit, a page that holds
        // every widget past `after`, so the two agree by construction.
        let (timelines, more) = try ServiceError.fromStore { () throws(StoreError) in
            try store.listTimelines(after: after, provider: parameters.provider, limit: parameters.limit ?? .max)
        }
        let page = timelines.map(info)
        let next = more ? page.last?.widget : nil
        context.reply(ListWidgetsReply(widgets: page, next: next))
    }

    func getPresentation(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let (widget, surface) = try presentationTarget(call)
        defer {
            // Remember the message and the slot answering it, for the next identical one.
            if !call.more, !call.oneway, !call.upgrade {
                call.withMessageBytes { responder.remember($0, for: widget, surface) }
            }
        }
        if let (cached, protection) = responder.reply(widget, surface, now: now) {
            // A copy of the secure reply, which may be content: zero it once sent.
            var copy = cached.withUnsafeBytes { Array($0) }
            context.reply(encoded: copy, protecting: protection)
            VarlinkReply.wipe(&copy)
            return
        }
        let (presentation, nextChange, protection) = try presentation(of: widget, on: surface)
        var reply = ExactReply.encode(presentation: presentation)
        // The reply may hold decrypted content: only the secure copy outlives this call.
        defer { SecretWipe.zero(&reply) }
        // Content and redacted replies hold decrypted fields: not kept in memory that could
        // not be locked unless the configuration accepts it (`RequireLockedMemory=`).
        // A placeholder holds none, so it is cached either way.
        if let secure = try? reply.withUnsafeBytes({ try SecureBytes(copying: $0) }),
            secure.isLocked || !store.configuration.requireLockedMemory || presentation.mode == .placeholder
        {
            responder.insert(widget, surface, reply: secure, protection: protection, validUntil: nextChange)
        }
        context.reply(encoded: reply, protecting: protection)
    }

    /// A repeated `GetPresentation` answered from the cache without decoding it, for a
    /// peer still allowed to call it; `nil` sends it down the ordinary path.
    ///
    /// One lookup: the message's bytes lead to the cache slot holding the reply, whose
    /// generation says whether it was made under the current stamp. `now` is the loop's
    /// time for this turn (when the request was seen ready), so no clock is read here.
    /// `permit` is the connection's memory that its peer may call `GetPresentation`
    /// (see ``PresentationResponder``). The reply is a view of the cache's own secure
    /// copy, valid until the service next runs; the connection sends it at once.
    /// Nothing here allocates or retains.
    ///
    /// Visibility (docs/ARCHITECTURE.md, "Writes not yet acknowledged"): a read sees
    /// every write accepted before it, answered or not, on this path as on the decoded
    /// one. Accepting a write empties its widget's slots, so a read of that widget
    /// misses here and takes the decoded path, which commits the accepted writes first.
    func cachedReply(
        to message: UnsafeRawBufferPointer, connection: ConnectionID, peer: PeerCredentials, now: Date, permit: inout UInt64,
        protection: inout (any OutputTag)?
    ) -> UnsafeRawBufferPointer? {
        // The stamp changes only in apply(_:); a debug build checks that nothing else
        // changed the key state or settings behind its back.
        assert(responder.stamp == device.presentationStamp, "the key state changed outside DeviceController.apply")
        var held: ReplyProtection?
        let reply = responder.reply(to: message, now: now, permit: &permit, protection: &held) {
            access.authorization.permits(access.authority(for: connection, peer: peer), method: WidgetdMethod.getPresentation.fullName)
        }
        protection = held
        return reply
    }

    func watch(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let (widget, surface) = try presentationTarget(call)
        let (presentation, nextChange, protection) = try presentation(of: widget, on: surface)
        guard context.wantsMore else {
            return context.reply(presentation: presentation, protecting: protection)
        }
        let watch = Subscriptions.PresentationWatch(context: context, widget: widget, surface: surface)
        var encoded = ExactReply.encode(presentation: presentation, continues: true)
        defer { VarlinkReply.wipe(&encoded) }
        // Without a digest the next refresh sends its reply, changed or not.
        watch.lastSent = try? PresentationDigest(of: encoded)
        watch.nextChange = nextChange
        subscriptions.add(watch)
        context.stream(encoded: encoded, protecting: protection)
        reschedule()
    }

    /// `Host.WatchWidgets()`: every widget stored, deleted or given a new family from now on.
    func watchWidgets(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        guard context.wantsMore else { throw .varlink(.expectedMore) }
        subscriptions.addWidgetWatch(context)
    }

    /// Tells the hosts following the stored widgets of one change.
    func publish(_ event: WidgetEvent.Kind, _ metadata: (widget: WidgetID, family: String?, protectionClass: ProtectionClass, generation: UInt64)) {
        let info = WidgetInfo(
            widget: metadata.widget.description, provider: metadata.widget.provider, kind: metadata.widget.kind,
            family: metadata.family, class: metadata.protectionClass, generation: metadata.generation)
        for context in subscriptions.widgetWatches where context.isOpen {
            context.stream(WidgetEvent(event: event, widget: info))
        }
    }

    func reloadTimelines(_ call: VarlinkCall, _ context: CallContext) throws(ServiceError) {
        let parameters = try call.decodedParameters(ReloadTimelinesParameters.self)
        try whenIndexed(context, method: call.method) { [unowned self] (_) throws(ServiceError) in
            let widgets = try ServiceError.fromStore { () throws(StoreError) in
                try store.storedWidgets(provider: parameters.provider, kind: parameters.kind)
            }
            for widget in widgets { announce(ReloadRequest(widget: widget.description, reason: .requested)) }
            context.reply(Empty())
        }
    }

    /// `[Daemon] StaleAfterSec=` in force.
    var staleAfter: TimeInterval { access.authorization.configuration.staleAfterSeconds }

    private func presentationTarget(_ call: VarlinkCall) throws(ServiceError) -> (WidgetID, Surface) {
        // `PresentationParameters`, read without a decoder (see `decodedStrings`).
        let parameters = try call.decodedStrings(["widget", "surface"])
        let widget = try widgetID(parameters[0])
        guard let surface = Surface(rawValue: parameters[1]) else { throw .invalidParameter("surface") }
        return (widget, surface)
    }

    /// What a host is shown for `widget` on `surface` now, when that changes by itself,
    /// and the protected content it shows (`nil` for a placeholder, which shows none).
    ///
    /// The rules decide first; the timeline is decrypted only when they would show it.
    /// `read` is what the caller read of the widget already, as `readableMetadata` and
    /// `readableExcerpt` would give it now (a refresh pass reads its widgets' metadata
    /// and decodes the bodies it opens together); `decided`, what ``decide(_:on:metadata:)``
    /// made of that metadata under the key state and settings in force now (a refresh
    /// pass's plan), so that the rules decide once.
    func presentation(
        of widget: WidgetID, on surface: Surface, read: PassReads? = nil,
        decided: Result<(ProtectionClass, PresentationDecision), ServiceError>? = nil
    ) throws(ServiceError) -> (presentation: Presentation, nextChange: Date?, protection: ReplyProtection?) {
        let now = self.now
        let metadata = read?.metadata[widget] ?? readableMetadata(widget, withPlaceholder: false)
        let ruled: (ProtectionClass, PresentationDecision)
        if let decided { ruled = try decided.get() } else { ruled = try decide(widget, on: surface, metadata: metadata) }
        let (protectionClass, decision) = ruled
        // What the rules read of the timeline: the pass's excerpt if its entry is still
        // the current one, else the excerpt at `now`, decoded now.
        var timeline: TimelineExcerpt?
        if decision != .placeholder, metadata != nil {
            if let excerpt = read?.timelines[widget], excerpt.covers(now) {
                timeline = excerpt
            } else {
                timeline = readableExcerpt(widget, at: now)
            }
        }
        // Content shows no placeholder value: only the other modes read it (from the
        // store's cache, which the read of the timeline just filled, or the file).
        let showsContent = decision == .content && timeline?.entry != nil
        let placeholderBytes = showsContent || metadata == nil ? nil : readableMetadata(widget)?.placeholder
        let placeholder = placeholderBytes.flatMap { try? Placeholder.decode(from: $0, limits: limits) }
        let presentation = PresentationRules.present(
            decision, widget: widget, excerpt: timeline, placeholder: placeholder,
            reloadDue: metadata?.reloadDue, surface: surface, now: now, state: store.deviceState, staleAfter: staleAfter,
            actionPending: actions.isAwaitingTimeline(widget))
        let nextChange = PresentationRules.nextChange(of: presentation, excerpt: timeline, now: now, staleAfter: staleAfter)
        // A host never reads an open class-B timeline while locked: no openTimeline.
        let protection = presentation.mode == .placeholder ? nil : ReplyProtection(protectionClass: protectionClass)
        return (presentation, nextChange, protection)
    }

    /// The class `widget` is shown under (its timeline's, or its registered provider's
    /// when it has none) and what the rules decide it shows on `surface` now.
    private func decide(
        _ widget: WidgetID, on surface: Surface, metadata: TimelineMetadata?
    ) throws(ServiceError) -> (ProtectionClass, PresentationDecision) {
        guard let protectionClass = metadata?.protectionClass
            ?? access.authorization.providers.first(where: { $0.id == widget.provider })?.dataProtection
        else { throw .widgetNotFound(widget.description) }
        let context = PresentationContext(
            widget: widget, surface: surface, state: store.deviceState, passcodeSet: store.passcodeSet,
            protectionClass: protectionClass, settings: device.settings)
        do { return (protectionClass, try PresentationRules.decide(context)) } catch { throw .unavailableOnSurface(surface) }
    }

    /// The widget's metadata, or `nil` when none is stored or its file failed
    /// verification (logged): a damaged file shows as "no timeline", never as an error
    /// that would stop a host drawing the widget.
    private func readableMetadata(_ widget: WidgetID, withPlaceholder: Bool = true) -> TimelineMetadata? {
        do {
            return try withPlaceholder ? store.metadata(widget) : store.metadataWithoutPlaceholder(widget)
        } catch {
            logger.with("widget.id", "\(widget)").error("timeline metadata unreadable", event: "timeline_unreadable", error: error)
            return nil
        }
    }

    /// The timeline as a host may see it at `now`, as far as a presentation reads it
    /// (`TimelineExcerpt.decode`: every date, the policy, the current entry; a body it
    /// cannot vouch for gets the whole decode and its verdict), or `nil` when it cannot
    /// be read: a locked class, or a file that failed authentication or does not decode
    /// (logged; the host gets the placeholder).
    private func readableExcerpt(_ widget: WidgetID, at now: Date) -> TimelineExcerpt? {
        let problem: any Error
        do throws(StoreError) {
            let body = try store.readBody(widget, allowOpenClassB: false)
            do throws(InvalidTimeline) {
                return try body.withUnsafeBytes { (bytes) throws(InvalidTimeline) in
                    try TimelineExcerpt.decode(from: bytes, at: now, limits: limits)
                }
            } catch {
                problem = error
            }
        } catch .protectedDataUnavailable {
            return nil
        } catch {
            problem = error
        }
        logger.with("widget.id", "\(widget)").error("timeline unreadable", event: "timeline_unreadable", error: problem)
        return nil
    }

    // MARK: Pushing changes

    /// Re-presents the watches of `widget` (or every watch) and streams those that changed,
    /// in two steps: the plan (``planRefresh(_:)``: which watches, grouped by the (widget,
    /// surface) they show, and what the rules decide each shows, once), then its
    /// presentation (``present(_:)``).
    ///
    /// One pass presents each (widget, surface) once, however many hosts watch it (an
    /// unlock re-presents every watch: a timeline decrypted and decoded per host made a
    /// thousand hosts of one widget miss a frame), and encodes its reply once: every
    /// host that needs it is sent the same bytes, which each connection copies into its
    /// own secure output, marked with the reply's protection, if its socket does not take
    /// them at once. The shared bytes are zeroed when the pass ends.
    func refreshWatches(_ widget: WidgetID?) {
        present(planRefresh(widget))
    }

    /// What one refresh pass presents, decided before anything is shown.
    private struct RefreshPlan {
        /// A widget on a surface, presented once for every host watching it there.
        struct Target {
            let widget: WidgetID
            let surface: Surface
            /// The class it is shown under and what the rules decide it shows, or why it
            /// cannot be shown; `nil`: decided as it is presented (a pass over one widget,
            /// metadata not read ahead).
            var decided: Result<(ProtectionClass, PresentationDecision), ServiceError>?
        }

        /// The key state and settings the decisions were made under; `nil`: none was
        /// made (a pass over one widget), and none is computed.
        let stamp: PresentationCache.Stamp?
        /// The targets, in the order of their first watch.
        var targets: [Target] = []
        /// The watches open when planned, in order, each with the index of its target.
        var watches: [(watch: Subscriptions.PresentationWatch, target: Int)] = []
        /// What the pass reads ahead (a pass over every watch): the metadata, by widget,
        /// here; the timelines ``present(_:)`` opens together.
        var read: PassReads?
        /// The widgets whose timelines the decisions show as more than a placeholder under
        /// a key held now: opened together before any is presented.
        var toOpen: [WidgetID] = []
    }

    /// Plans a refresh pass over the open watches of `widget` (or every open watch):
    /// groups them by (widget, surface), and, over every watch, reads each widget's
    /// metadata and has the rules decide each target once, noting the timelines the pass
    /// needs decrypted. Metadata that cannot be read (or none stored) is left for the
    /// presentation to read, and to report once; a pass over one widget opens one
    /// timeline at most, nothing to share out: its targets are decided as presented.
    private func planRefresh(_ widget: WidgetID?) -> RefreshPlan {
        let watches = widget.map(subscriptions.watches(of:)) ?? subscriptions.watches
        var plan = RefreshPlan(stamp: widget == nil ? device.presentationStamp : nil)
        plan.watches.reserveCapacity(watches.count)
        // Sized once: grown as it fills, every key would be hashed again at each doubling.
        var indices = [WatchTarget: Int](minimumCapacity: watches.count)
        var read = widget == nil ? PassReads() : nil
        read?.metadata.reserveCapacity(watches.count)
        for watch in watches where watch.context.isOpen {
            let key = WatchTarget(widget: watch.widget, surface: watch.surface)
            if let index = indices[key] {
                plan.watches.append((watch, index))
                continue
            }
            indices[key] = plan.targets.count
            plan.watches.append((watch, plan.targets.count))
            var target = RefreshPlan.Target(widget: watch.widget, surface: watch.surface)
            if read != nil {
                target.decided = decideAhead(watch.widget, on: watch.surface, metadata: &read!.metadata)
                // A widget shown on two surfaces may be listed twice: `prefetchBodies` opens
                // each once, and a set of the widgets needed would cost two more hashes of each id.
                if case .success(let (protectionClass, decision))? = target.decided, decision != .placeholder,
                    store.isKeyAvailable(protectionClass)
                {
                    plan.toOpen.append(watch.widget)
                }
            }
            plan.targets.append(target)
        }
        plan.read = read
        return plan
    }

    /// What the rules decide `widget` shows on `surface`, from its metadata read ahead
    /// (once per widget, kept in `metadata`); `nil` when there is none to read or it
    /// cannot be read: errors are the presentation's to report, once.
    private func decideAhead(
        _ widget: WidgetID, on surface: Surface, metadata: inout [WidgetID: TimelineMetadata]
    ) -> Result<(ProtectionClass, PresentationDecision), ServiceError>? {
        let known: TimelineMetadata
        if let cached = metadata[widget] {
            known = cached
        } else {
            guard let fetched = try? store.metadataWithoutPlaceholder(widget) else { return nil }
            metadata[widget] = fetched
            known = fetched
        }
        return Result { () throws(ServiceError) in try decide(widget, on: surface, metadata: known) }
    }

    /// Presents a planned pass: has the store open together the timelines it needs
    /// (``openTimelinesTogether(_:)``) and makes together the content replies they allow
    /// (``presentTogether(_:read:into:)``); then each open watch is streamed its target's
    /// presentation, made when its first open watch needs it, if it changed.
    ///
    /// The plan's decisions hold under the key state and settings they were made under:
    /// if those changed meanwhile (a lock while the bodies were opened or the replies
    /// made: only with an injected executor, the loop waiting in it otherwise), each
    /// target is presented alone and decided again, under the new state.
    private func present(_ plan: RefreshPlan) {
        // For this pass only: its timelines hold content in memory that cannot be
        // zeroed, as the decode in `presentation` does.
        var read = plan.read
        if read != nil { read!.timelines = openTimelinesTogether(plan.toOpen) }
        var shown = [SharedPresentation?](repeating: nil, count: plan.targets.count)
        defer { for entry in shown { entry?.wipe() } }
        func decisionsHold() -> Bool { plan.stamp.map { $0 == device.presentationStamp } ?? false }
        if let read, decisionsHold() { presentTogether(plan, read: read, into: &shown) }
        let decided = decisionsHold()
        for (watch, index) in plan.watches where watch.context.isOpen {
            let entry: SharedPresentation
            if let made = shown[index] {
                entry = made
            } else {
                let target = plan.targets[index]
                entry = SharedPresentation(Result { () throws(ServiceError) in
                    try presentation(
                        of: target.widget, on: target.surface, read: read, decided: decided ? target.decided : nil)
                })
                shown[index] = entry
            }
            switch entry.outcome {
            case .success(let (_, nextChange, protection)):
                watch.nextChange = nextChange
                let digest = entry.digest()
                if digest == nil || digest != watch.lastSent {
                    watch.lastSent = digest
                    watch.context.stream(encoded: entry.encodedReply(), protecting: protection)
                }
            case .failure(let error):
                // The widget vanished (deleted, its provider unregistered): end the stream.
                watch.context.fail(with: error, method: WidgetdMethod.watch.fullName)
                subscriptions.remove(watch)
            }
        }
    }

    /// Has the store open together, on both cores, the timelines a refresh pass will
    /// show and has not decrypted (`TimelineStore.prefetchBodies`), before any is
    /// presented: after an unlock that is one key agreement per watched widget, and
    /// one after another on the loop they would bound the last host's wait (BENCHMARKS,
    /// "Unlock fan-out"). Only what the plan's decisions show as more than a placeholder;
    /// anything it leaves (a file that fails, one more than the cache holds) the pass
    /// reads and reports as it would have.
    ///
    /// Each body is decoded on the thread that opened it, as `readableExcerpt` decodes it
    /// (`TimelineExcerpt.decode`: every date, the policy, the current entry validated;
    /// a body it cannot vouch for gets the whole decode and its verdict);
    /// returns the excerpts of the bodies the store cached. A body that does not decode
    /// is absent, so the pass reads it again and logs it as it would have.
    private func openTimelinesTogether(_ widgets: [WidgetID]) -> [WidgetID: TimelineExcerpt] {
        guard widgets.count > 1 else { return [:] }
        // A presentation reads one entry's fields: the others are skipped unread.
        let now = self.now
        return store.prefetchBodies(widgets, perform: openBodies) { [limits] bytes in
            try? TimelineExcerpt.decode(from: bytes, at: now, limits: limits)
        }
    }

    /// Presents, encodes and digests together, on both cores (`presentReplies`), what
    /// the pass shows as content from the excerpts it read ahead: only a target the plan
    /// decided to show as content, with a current entry, needs nothing more of the store
    /// (no placeholder), so only those go; the rest are presented on the loop as the
    /// pass meets them. Each reply is the one `presentation(of:on:read:decided:)` would
    /// make at the instant taken here, which the excerpt must cover.
    ///
    /// The replies hold decrypted content: they join `shown`, zeroed when the pass ends.
    /// If the key state or settings changed while they were made (a lock: only with
    /// an injected executor, the loop waiting in it otherwise), every one is zeroed and
    /// none shown; the pass then presents each under the new state.
    private func presentTogether(_ plan: RefreshPlan, read: PassReads, into shown: inout [SharedPresentation?]) {
        // A pass that read no timeline ahead (a lock's: placeholders) has none to present.
        guard read.timelines.count > 1 else { return }
        let now = self.now
        var jobs: [ContentJob] = []
        jobs.reserveCapacity(read.timelines.count)
        var protections: [ReplyProtection] = []
        protections.reserveCapacity(read.timelines.count)
        for (index, target) in plan.targets.enumerated() {
            guard case .success((let protectionClass, .content))? = target.decided,
                let metadata = read.metadata[target.widget], let excerpt = read.timelines[target.widget],
                excerpt.entry != nil, excerpt.covers(now)
            else { continue }
            jobs.append(
                ContentJob(
                    target: index, widget: target.widget, surface: target.surface, excerpt: excerpt,
                    reloadDue: metadata.reloadDue, actionPending: actions.isAwaitingTimeline(target.widget)))
            protections.append(ReplyProtection(protectionClass: protectionClass))
        }
        guard jobs.count > 1 else { return }
        let made = ContentReplies(count: jobs.count)
        let (state, staleAfter) = (store.deviceState, self.staleAfter)
        presentReplies(jobs.count) { [jobs] index in
            let job = jobs[index]
            let presentation = PresentationRules.present(
                .content, widget: job.widget, excerpt: job.excerpt, placeholder: nil,
                reloadDue: job.reloadDue, surface: job.surface, now: now, state: state, staleAfter: staleAfter,
                actionPending: job.actionPending)
            let nextChange = PresentationRules.nextChange(of: presentation, excerpt: job.excerpt, now: now, staleAfter: staleAfter)
            let encoded = ExactReply.encode(presentation: presentation, continues: true)
            made.store(index, (presentation, nextChange, encoded, try? PresentationDigest(of: encoded)))
        }
        let overtaken = device.presentationStamp != plan.stamp
        for (index, job) in jobs.enumerated() {
            guard var reply = made.take(index) else { continue }
            guard !overtaken else {
                VarlinkReply.wipe(&reply.encoded)
                continue
            }
            shown[job.target] = SharedPresentation(
                .success((reply.presentation, reply.nextChange, protections[index])), encoded: reply.encoded, digest: reply.digest)
        }
    }

    /// One presentation `presentTogether` has made on another thread: a content
    /// decision and the excerpt it shows, for the plan's target at `target`.
    private struct ContentJob: Sendable {
        let target: Int
        let widget: WidgetID
        let surface: Surface
        let excerpt: TimelineExcerpt
        let reloadDue: Date?
        let actionPending: Bool
    }

    /// The replies of one `presentTogether` call: each slot written by the one thread
    /// that made it, and taken on the loop once every thread is done. A reply never
    /// taken is zeroed when this is released.
    private final class ContentReplies: @unchecked Sendable {
        typealias Reply = (presentation: Presentation, nextChange: Date?, encoded: [UInt8], digest: PresentationDigest?)
        private let slots: UnsafeMutableBufferPointer<Reply?>

        init(count: Int) {
            slots = .allocate(capacity: count)
            slots.initialize(repeating: nil)
        }

        deinit {
            for index in slots.indices where slots[index] != nil { VarlinkReply.wipe(&slots[index]!.encoded) }
            slots.deinitialize()
            slots.deallocate()
        }

        func store(_ index: Int, _ reply: Reply) { slots[index] = reply }

        func take(_ index: Int) -> Reply? {
            slots[index].take()
        }
    }

    /// What a refresh pass read ahead of its presentations, by widget: the metadata
    /// (without its placeholder) and the timelines decoded with their bodies, as
    /// excerpts at the pass's start (a presentation made once another entry is current
    /// decodes its timeline again).
    struct PassReads {
        var metadata: [WidgetID: TimelineMetadata] = [:]
        var timelines: [WidgetID: TimelineExcerpt] = [:]
    }

    /// What one refresh pass presents: a widget on a surface (the key its plan groups
    /// watches by).
    private struct WatchTarget: Hashable, Sendable {
        let widget: WidgetID
        let surface: Surface
    }

    /// A presentation computed once in a refresh pass, and its stream reply, encoded
    /// when the first host needs it and zeroed by ``wipe()`` when the pass ends.
    private final class SharedPresentation {
        let outcome: Result<(presentation: Presentation, nextChange: Date?, protection: ReplyProtection?), ServiceError>
        private var encoded: [UInt8]?
        private var digested: PresentationDigest??

        init(_ outcome: Result<(presentation: Presentation, nextChange: Date?, protection: ReplyProtection?), ServiceError>) {
            self.outcome = outcome
        }

        /// A presentation whose reply and digest were made already (`presentTogether`).
        init(
            _ outcome: Result<(presentation: Presentation, nextChange: Date?, protection: ReplyProtection?), ServiceError>,
            encoded: [UInt8], digest: PresentationDigest?
        ) {
            self.outcome = outcome
            self.encoded = encoded
            digested = .some(digest)
        }

        /// The reply with `continues: true`; only for a successful outcome.
        func encodedReply() -> [UInt8] {
            if let encoded { return encoded }
            guard case .success(let shown) = outcome else { preconditionFailure("no presentation to encode") }
            let bytes = ExactReply.encode(presentation: shown.presentation, continues: true)
            encoded = bytes
            return bytes
        }

        /// The digest of ``encodedReply()``, or `nil` if it could not be made (then the
        /// reply is sent, changed or not).
        func digest() -> PresentationDigest? {
            if let digested { return digested }
            let digest = try? PresentationDigest(of: encodedReply())
            digested = .some(digest)
            return digest
        }

        /// Zeroes the encoded reply (it may hold decrypted content).
        func wipe() {
            guard encoded != nil else { return }
            VarlinkReply.wipe(&encoded!)
            encoded = nil
        }
    }

    /// Sends a reload request to every `WatchReloads` stream that wants it.
    /// Returns whether anyone heard it.
    @discardableResult
    func announce(_ request: ReloadRequest) -> Bool {
        guard let widget = try? WidgetID(request.widget) else { return false }
        var heard = false
        for watch in subscriptions.reloadWatches where watch.context.isOpen && watch.wants(widget) {
            watch.context.stream(request)
            heard = true
        }
        return heard
    }

    /// Announces every due, unannounced reload to the providers listening.
    ///
    /// A due reload that no connection of its provider hears starts the provider's
    /// `Unit=`, if it has one (DESIGN §14): the provider then watches, and hears it.
    func announceDueReloads() {
        // Nobody would hear it, and nobody is started for it: spare the pass over every
        // stored timeline.
        let startsOnDemand = unitStarter != nil && access.authorization.providers.contains { $0.unit != nil }
        guard startsOnDemand || subscriptions.reloadWatches.contains(where: { $0.context.isOpen }) else { return }
        for widget in reloads.due(at: now) {
            if announce(ReloadRequest(widget: widget.description, reason: .due)) {
                reloads.announced(widget)
            } else if startsOnDemand {
                startProvider(widget.provider)
            }
        }
    }
}

/// The service's date timer wakes it for what changes by itself at a date.
extension TimelineService: WakeSchedulerDelegate {
    /// The wake-up: entry dates reached, reloads due.
    func wakeUp() {
        let clocks = scheduler.clocks
        let now = clocks.wall
        // A presentation shows the key state of its instant: a purge or inactivity restart
        // due by now runs first (the device's key timer, on another clock, may fire later
        // in this turn), so that a watch is never shown once under the state it left.
        device.applyDueKeyChanges(at: clocks)
        let due = subscriptions.watches.filter { $0.nextChange.map { $0 <= now } ?? false }
        for watch in due { refreshWatches(watch.widget) }
        announceDueReloads()
        reschedule()
    }
}

extension TimelineService {
    /// Arms the date timer for the earliest entry date or reload due (the key deadlines
    /// are the device's to arm: ``DeviceController/keyTimers``).
    func reschedule() {
        let now = self.now
        wake.reschedule(date: [subscriptions.nextChange, reloads.nextDue(after: now)].compactMap { $0 }.min())
    }

    /// The wall clock was set, forward or back: every choice made from a date is made
    /// again at once. Cached replies were chosen for an entry current at the old time;
    /// watching hosts get the entry current now; reloads now due are announced, and the
    /// date timer is re-armed for the next date from now.
    func wallClockWasSet() {
        responder.forgetAll()
        refreshWatches(nil)
        announceDueReloads()
        reschedule()
    }
}
