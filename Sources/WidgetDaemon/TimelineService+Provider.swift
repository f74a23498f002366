import FoundationEssentials
import SecureMemory
import StrictJSON
import Varlink
import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdWire

/// io.widgetd.Provider: what widget extensions call (DESIGN §5).
extension TimelineService {
    /// Checks that the caller may provide `text`'s widget and that its provider is
    /// registered; returns the id and the provider's registration.
    private func providedWidget(
        _ text: String, _ context: CallContext, _ authority: PeerAuthority, method: String
    ) throws(ServiceError) -> (WidgetID, ProviderRegistration)? {
        let widget = try widgetID(text)
        guard authority.mayProvide(widget) else {
            // The refusal names the provider and who may write for it, so that the caller
            // knows whose User=/Group= in providers.d/ to ask for; no timeline is consulted.
            let registration = access.authorization.providers.first { $0.id == widget.provider }
            context.deny(
                method, widget: text,
                error: .permissionDenied(provider: widget.provider, user: registration?.uid, group: registration?.gid))
            return nil
        }
        guard let registration = access.authorization.providers.first(where: { $0.id == widget.provider }) else {
            throw .providerNotRegistered(widget.provider)
        }
        return (widget, registration)
    }

    /// Whether the caller may follow `provider` (a stream naming it): an administrator
    /// any registered provider, anyone else only one it provides; refused as writing one
    /// of its widgets would be (the refusal is answered here, and `false` returned).
    private func namedProvider(
        _ provider: String, _ context: CallContext, _ authority: PeerAuthority, method: String
    ) throws(ServiceError) -> Bool {
        guard WidgetID.isValidProviderID(provider) else { throw .invalidParameter("provider") }
        let registration = access.authorization.providers.first { $0.id == provider }
        guard authority.isAdmin || authority.providers.contains(provider) else {
            context.deny(method, error: .permissionDenied(provider: provider, user: registration?.uid, group: registration?.gid))
            return false
        }
        guard registration != nil else { throw .providerNotRegistered(provider) }
        return true
    }

    func putTimeline(_ call: VarlinkCall, _ context: CallContext, _ authority: PeerAuthority) throws(ServiceError) {
        let members = try ProviderParameters.walked(call, .putTimeline, transcribingWith: bodies, limits: limits)
        if let transcript = members.transcript { return try putTimeline(members, transcript, call, context, authority) }
        let parameters = try PutTimelineParameters.read(members)
        guard let (widget, registration) = try providedWidget(
            parameters.widget, context, authority, method: call.method)
        else { return }
        let timeline = Timeline(entries: parameters.entries, policy: parameters.policy ?? .atEnd)
        try ServiceError.fromTimeline { () throws(InvalidTimeline) in
            try TimelineValidator.validate(timeline, limits: limits)
            if let placeholder = parameters.placeholder { try TimelineValidator.validate(placeholder: placeholder, limits: limits) }
        }
        let placeholder = parameters.placeholder?.canonicalJSON
        let body = try bodies.encode(timeline)
        guard quotasAreJudgedNow else {
            // Its quota is judged on the complete index: it waits for it, holding only the
            // sealed-to-be body (secure memory), and is accepted under the registration,
            // keys and state then in force.
            let (text, family, reloadDue) = (parameters.widget, parameters.family, timeline.reloadDue)
            return try whenIndexed(context, method: call.method) { [unowned self] (authority) throws(ServiceError) in
                guard let (widget, registration) = try providedWidget(text, context, authority, method: WidgetdMethod.putTimeline.fullName)
                else { return }
                accept(widget, registration, family: family, reloadDue: reloadDue, body: body, placeholder: placeholder, context)
            }
        }
        accept(widget, registration, family: parameters.family, reloadDue: timeline.reloadDue, body: body, placeholder: placeholder, context)
    }

    /// `putTimeline` for entries already written into their canonical body as the
    /// message was walked (`ProviderParameters.Transcript`): judged in the same order,
    /// with the same errors, as the entries read as values, which were valid.
    private func putTimeline(
        _ members: ProviderParameters, _ transcript: ProviderParameters.Transcript, _ call: VarlinkCall,
        _ context: CallContext, _ authority: PeerAuthority
    ) throws(ServiceError) {
        let text = try members.widget()
        let family = try members.family()
        let policy = try members.timelinePart(\.policy) ?? .atEnd
        let placeholder = try members.timelinePart(\.placeholder)
        guard let (widget, registration) = try providedWidget(text, context, authority, method: call.method) else { return }
        try ServiceError.fromTimeline { () throws(InvalidTimeline) in
            try TimelineValidator.validate(policy: policy)
            if let placeholder { try TimelineValidator.validate(placeholder: placeholder, limits: limits) }
        }
        let placeholderJSON = placeholder?.canonicalJSON
        guard let result = transcript.body else { preconditionFailure("a refused policy is thrown above") }
        let body = try result.get()
        let reloadDue = CanonicalEntries.reloadDue(policy, lastDate: transcript.lastDate)
        guard quotasAreJudgedNow else {
            return try whenIndexed(context, method: call.method) { [unowned self] (authority) throws(ServiceError) in
                guard let (widget, registration) = try providedWidget(text, context, authority, method: WidgetdMethod.putTimeline.fullName)
                else { return }
                accept(widget, registration, family: family, reloadDue: reloadDue, body: body, placeholder: placeholderJSON, context)
            }
        }
        accept(widget, registration, family: family, reloadDue: reloadDue, body: body, placeholder: placeholderJSON, context)
    }

    /// Whether a write's quota is judged now: the index is complete, or the store knows
    /// every provider's usage without it (the catalog's usage table: `isUsageKnown`).
    /// Otherwise the write waits for the index rather than completing it on the loop.
    private var quotasAreJudgedNow: Bool { index.isComplete || store.isUsageKnown }

    /// Accepts a `PutTimeline` write for the next group commit.
    private func accept(
        _ widget: WidgetID, _ registration: ProviderRegistration, family: String?, reloadDue: Date?, body: SecureBytes,
        placeholder: [UInt8]?, _ context: CallContext
    ) {
        let write = TimelineStore.TimelineWrite(
            widget: widget, protectionClass: registration.dataProtection, family: family, reloadDue: reloadDue, body: body,
            placeholder: placeholder, quota: registration.quota)
        // Accepted: from now on a read of this widget sees it, on the cached path too
        // (`cachedReply`): its cached replies go, and the decoded path commits it first.
        responder.forget(widget)
        noteWidgetEvent(widget, family: family)
        committer.accept((context, write))
    }
}

/// The service hears of its committer's batches: it answers the writers, then announces
/// what they stored.
extension TimelineService: GroupCommitterDelegate {
    /// Answers every call of a durable batch: its generation, or its error.
    func reply(_ batch: [GroupCommitter.Item], _ results: [Result<UInt64, StoreError>]) {
        for (item, result) in zip(batch, results) {
            switch result {
            case .success(let generation): item.context.reply(encoded: GenerationReply(generation: generation).encodedReply)
            case .failure(let error): item.context.fail(with: .store(error), method: WidgetdMethod.putTimeline.fullName)
            }
        }
    }

    /// Announces each stored write of a batch the store has applied: reloads, watches,
    /// the next wake-up.
    func announce(_ batch: [GroupCommitter.Item], _ results: [Result<UInt64, StoreError>]) {
        var written: [WidgetID] = []
        for (item, result) in zip(batch, results) {
            let write = item.write
            let event = widgetEvents.removeValue(forKey: write.widget)
            guard case .success(let generation) = result else { continue }
            stored(write.widget, generation: generation)
            if let event { publish(event, (write.widget, write.family, write.protectionClass, generation)) }
            if !written.contains(write.widget) { written.append(write.widget) }
        }
        announceDueReloads()
        for widget in written { refreshWatches(widget) }
        reschedule()
        // Each write's body is now the store's cached copy, or released (and so zeroed
        // by `sodium_free`) with `batch`.
    }
}

extension TimelineService {
    func appendEntries(_ call: VarlinkCall, _ context: CallContext, _ authority: PeerAuthority) throws(ServiceError) {
        let parameters = try AppendEntriesParameters.read(from: call)
        guard let (widget, registration) = try providedWidget(
            parameters.widget, context, authority, method: call.method)
        else { return }
        guard !quotasAreJudgedNow else { return try append(parameters.entries, to: widget, named: parameters.widget, registration, context) }
        // Its quota is judged on the complete index: the entries wait for it in secure
        // memory, and are appended to the timeline as it is then, under the state then.
        try ServiceError.fromTimeline { () throws(InvalidTimeline) in
            try TimelineValidator.validate(entries: parameters.entries, limits: limits)
        }
        let entries = try bodies.encode(Timeline(entries: parameters.entries))
        let text = parameters.widget
        try whenIndexed(context, method: call.method) { [unowned self] (authority) throws(ServiceError) in
            guard let (widget, registration) = try providedWidget(text, context, authority, method: WidgetdMethod.appendEntries.fullName)
            else { return }
            let appended = try ServiceError.fromTimeline { () throws(InvalidTimeline) in
                try entries.withUnsafeBytes { (bytes) throws(InvalidTimeline) in try Timeline.decode(from: bytes, limits: limits) }
            }.entries
            try append(appended, to: widget, named: text, registration, context)
        }
    }

    /// Appends `entries` to `widget`'s stored timeline (`text` as the caller named it,
    /// for the error) and answers the new generation once it is durable.
    ///
    /// It builds on the widget's accepted writes (its provider's), none other: the call
    /// is parked until they are durable and applied (`GroupCommitter.whenSettled`), and
    /// its own write then goes into the group commit like a `PutTimeline`'s, answered
    /// once durable. The loop never waits for either sync.
    private func append(
        _ entries: [Entry], to widget: WidgetID, named text: String, _ registration: ProviderRegistration, _ context: CallContext
    ) throws(ServiceError) {
        committer.whenSettled(widget) { [unowned self] in
            do throws(ServiceError) {
                try appendSettled(entries, to: widget, named: text, registration, context)
            } catch {
                context.fail(with: error, method: WidgetdMethod.appendEntries.fullName)
            }
        }
    }

    /// `append` once the widget's accepted writes are applied: the new timeline is
    /// accepted for the next group commit.
    private func appendSettled(
        _ entries: [Entry], to widget: WidgetID, named text: String, _ registration: ProviderRegistration, _ context: CallContext
    ) throws(ServiceError) {
        guard let metadata = try ServiceError.fromStore({ () throws(StoreError) in try store.metadata(widget) }) else {
            throw .widgetNotFound(text)
        }
        let timeline = try readTimeline(widget).appending(entries)
        try ServiceError.fromTimeline { () throws(InvalidTimeline) in try TimelineValidator.validate(timeline, limits: limits) }
        let body = try bodies.encode(timeline)
        // The stored class, not today's registration: appending must not move a timeline.
        // The stored placeholder stays (nil keeps it).
        let write = TimelineStore.TimelineWrite(
            widget: widget, protectionClass: metadata.protectionClass, family: metadata.family,
            reloadDue: timeline.reloadDue, body: body, placeholder: nil, quota: registration.quota)
        responder.forget(widget)
        noteWidgetEvent(widget, family: metadata.family)
        committer.accept((context, write))
    }

    func getTimeline(_ call: VarlinkCall, _ context: CallContext, _ authority: PeerAuthority) throws(ServiceError) {
        let parameters = try call.decodedParameters(WidgetParameters.self)
        guard let (widget, _) = try providedWidget(parameters.widget, context, authority, method: call.method)
        else { return }
        guard let metadata = try ServiceError.fromStore({ () throws(StoreError) in try store.metadata(widget) }) else {
            throw .widgetNotFound(parameters.widget)
        }
        let timeline = try readTimeline(widget)
        // Marked, so that a reply its client leaves unread is dropped when its class is purged.
        context.reply(
            TimelineReply(family: metadata.family, entries: timeline.entries, policy: timeline.policy, generation: metadata.generation),
            protecting: ReplyProtection(protectionClass: metadata.protectionClass, openTimeline: widget))
    }

    func closeTimeline(_ call: VarlinkCall, _ context: CallContext, _ authority: PeerAuthority) throws(ServiceError) {
        let parameters = try call.decodedParameters(WidgetParameters.self)
        guard let (widget, _) = try providedWidget(parameters.widget, context, authority, method: call.method)
        else { return }
        store.closeTimeline(widget)
        responder.forget(widget)
        // A closed class-B timeline is no longer its provider's to read while locked.
        dropUnreadableOutput()
        context.reply(Empty())
    }

    func deleteTimeline(_ call: VarlinkCall, _ context: CallContext, _ authority: PeerAuthority) throws(ServiceError) {
        let parameters = try call.decodedParameters(WidgetParameters.self)
        guard let (widget, _) = try providedWidget(parameters.widget, context, authority, method: call.method)
        else { return }
        // Deleted after the widget's accepted writes (its provider's), none other: the
        // call is parked until they are durable and applied, never waited for on the loop.
        let method = call.method
        committer.whenSettled(widget) { [unowned self] in
            do throws(ServiceError) { try deleteSettled(widget, named: parameters.widget, context, method: method) } catch {
                context.fail(with: error, method: method)
            }
        }
    }

    /// `deleteTimeline` once the widget's accepted writes are applied: the catalog's save
    /// (its syncs) runs off the loop, and the call is answered once it is applied.
    private func deleteSettled(_ widget: WidgetID, named text: String, _ context: CallContext, method: String) throws(ServiceError) {
        guard let metadata = try ServiceError.fromStore({ () throws(StoreError) in try store.metadata(widget) }) else {
            throw .widgetNotFound(text)
        }
        responder.forget(widget)
        let prepared = try ServiceError.fromStore { () throws(StoreError) in try store.prepareDelete(widget) }
        committer.delete(prepared) { [unowned self] result in
            do throws(ServiceError) {
                try ServiceError.fromStore { () throws(StoreError) in try result.get() }
            } catch {
                return context.fail(with: error, method: method)
            }
            // A read meanwhile may have cached it again.
            responder.forget(widget)
            dropUnreadableOutput()
            reloads.removed(widget)
            actionsAnswered(widget)
            publish(.removed, (widget, metadata.family, metadata.protectionClass, metadata.generation))
            context.logger.with("widget.id", "\(widget)").info("timeline deleted", event: "timeline_deleted")
            context.reply(Empty())
            refreshWatches(widget)
        }
    }

    func watchReloads(_ call: VarlinkCall, _ context: CallContext, _ authority: PeerAuthority) throws(ServiceError) {
        guard context.wantsMore else { throw .varlink(.expectedMore) }
        let parameters = try call.decodedParameters(WatchReloadsParameters.self)
        let providers: Set<String>?
        if let provider = parameters.provider {
            // One provider, named: on a per-user instance every app is the owner (an
            // admin), so only the name keeps a clock from answering the mail's requests.
            guard try namedProvider(provider, context, authority, method: call.method) else { return }
            providers = [provider]
        } else {
            providers = authority.isAdmin ? nil : authority.providers
        }
        let watch = Subscriptions.ReloadWatch(context: context, providers: providers)
        subscriptions.add(watch)
        // Reloads that fell due while nobody listened are announced now; those of files
        // not yet indexed, by the slice that indexes them (`BackgroundIndex`).
        announceDueReloads()
    }

    // MARK: Storage

    /// Remembers, for a write about to be committed, whether it adds `widget` or gives
    /// it a new family: what `WatchWidgets` streams once it is stored. Only while a host
    /// follows the widgets: the lookup is not free.
    private func noteWidgetEvent(_ widget: WidgetID, family: String?) {
        guard subscriptions.followsWidgets, widgetEvents[widget] == nil else { return }
        switch (try? store.metadataWithoutPlaceholder(widget)) ?? nil {
        case nil: widgetEvents[widget] = .added
        case let known? where known.family != family: widgetEvents[widget] = .changed
        case _?: break
        }
    }

    /// A new generation of `widget` is durable: its cached presentations are stale.
    private func stored(_ widget: WidgetID, generation: UInt64) {
        responder.forget(widget)
        // The provider answered the actions performed on it: no longer `invalidated`.
        actionsAnswered(widget)
        reloads.stored(widget, generation: generation)
        // Once per write: the metadata is built only when debug is enabled.
        logger.debug(
            "timeline stored", event: "timeline_stored", metadata: ["widget.id": "\(widget)", "generation": "\(generation)"])
    }

    /// Decrypts (or takes from the cache) and decodes a timeline for its provider, who
    /// may still read an open class-B timeline while locked.
    func readTimeline(_ widget: WidgetID) throws(ServiceError) -> Timeline {
        let body = try ServiceError.fromStore { () throws(StoreError) in try store.readBody(widget, allowOpenClassB: true) }
        return try ServiceError.fromTimeline { () throws(InvalidTimeline) in
            try body.withUnsafeBytes { (bytes) throws(InvalidTimeline) in try Timeline.decode(from: bytes, limits: limits) }
        }
    }

    /// The registered providers the caller may see (DESIGN §6: an administrator every
    /// one; a provider's user its own), and to an administrator the provider files that
    /// register nothing, with the problem `--check-config` reports for each.
    func listProviders(_ call: VarlinkCall, _ context: CallContext, _ authority: PeerAuthority) throws(ServiceError) {
        let visible = access.authorization.providers.filter { authority.isAdmin || authority.providers.contains($0.id) }
            .sorted { $0.id < $1.id }
        let providers = visible.map {
            ProviderInfo(
                id: $0.id, class: $0.dataProtection, user: $0.uid, group: $0.gid, app: $0.app, file: $0.file,
                maxWidgets: $0.maxWidgets, maxBytes: $0.maxBytes)
        }
        let disabled = authority.isAdmin
            ? access.authorization.configuration.problems.filter(\.disablesProviderFile).map {
                DisabledProviderFile(file: $0.error.file, line: $0.error.line > 0 ? $0.error.line : nil, reason: $0.error.reasonText)
            }
            : []
        context.reply(ProviderListReply(providers: providers, disabled: disabled.isEmpty ? nil : disabled))
    }
}
