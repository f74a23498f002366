import Varlink

// The interface definitions, embedded so the daemon serves them without reading files.
// Each text equals its file in `interfaces/` byte for byte (a test checks this); edit the
// file and run scripts/embed-interfaces.

extension InterfaceDefinition {
    /// `io.widgetd.Device`: lock state, passcode and settings.
    public static let device = InterfaceDefinition(text: #"""
        # The device's lock state, its passcode and the user's widget settings.
        #
        # Data protection follows Apple's classes: class keys are released by the
        # first unlock (or each unlock) and purged again on lock, as the class says.
        interface io.widgetd.Device

        # What locked and always-on surfaces may show.
        type Settings (
          # "Lock Screen widgets: allow access when locked".
          lockScreenWidgetsAccess: bool,
          # Widget ids redacted on a locked lock screen even while access is on.
          hiddenLockScreenWidgets: []string,
          # One of "off", "all" or "selected".
          hideSensitiveComplications: string,
          # Widget ids hidden on the always-on display when the setting is "selected".
          hiddenComplications: []string
        )

        # Whether a protection class's key is released.
        type ClassStatus (
          # One of "complete", "completeUnlessOpen",
          # "completeUntilFirstUserAuthentication" or "none".
          class: string,
          keyAvailable: bool
        )

        # A change of the device's state or settings, as sent by Monitor.
        type DeviceEvent (
          # One of "state" or "settings": what changed.
          kind: string,
          # One of "beforeFirstUnlock", "unlocked" or "locked".
          state: string,
          passcodeSet: bool,
          settings: Settings,
          # Why it is locked, as in GetStatus; absent while unlocked.
          lockedBy: ?string,
          # Whether the passcode is in step with the login password, as in GetStatus.
          passcodeInStep: ?bool,
          # The watched logind sessions, as in GetStatus; absent when none are followed.
          sessions: ?[]string
        )

        # The device's lock state, key availability, failed attempts and settings.
        # "state" is one of "beforeFirstUnlock", "unlocked" or "locked";
        # "retryAfter" is the number of seconds before the next Unlock is accepted.
        # "warnings" (absent when there is none) lists what an administrator must know:
        # "settingsUnreadable" (the settings file could not be read: the most
        # restrictive settings apply until SetSettings) and "memoryNotLocked" (some
        # secure memory could not be locked in RAM: raise LimitMEMLOCK=).
        # "passcodeInStep" is false once the passcode is out of step with the login
        # password (ReportPasscodeOutOfStep), until a SetPasscode succeeds.
        # "lockedBy" (absent while unlocked) says why it is locked: "client" (Lock),
        # "session", "sleep", "sessionEnd", "inactivity" or "start" (not unlocked since start).
        # "sessions" (absent when sessions are not followed: no logind, or every
        # [Session] source off) lists the ids of the watched logind sessions.
        # "protection" says what is in force: "deviceKey" is "file", "credential" or
        # "tpm2" (what holds the device key); "attempts" is "software" or "tpm2" (what
        # counts failed passcode attempts); "rollback" is "catalog" (single timeline
        # files) or "tpm2" (the whole state directory, anchored in the TPM's NV counter).
        # "classAGraceEndsIn" (absent when no purge is pending) is the number of seconds
        # before the class-A key is purged after a lock; "passcodeRequiredIn" (absent
        # unless locked with RequirePasscodeAfterSec= on) the number of seconds before
        # class C is purged too and the passcode is needed again.
        method GetStatus() -> (
          state: string,
          passcodeSet: bool,
          classes: []ClassStatus,
          failedAttempts: int,
          retryAfter: ?float,
          settings: Settings,
          warnings: ?[]string,
          passcodeInStep: ?bool,
          lockedBy: ?string,
          sessions: ?[]string,
          protection: (deviceKey: string, attempts: string, rollback: string),
          classAGraceEndsIn: ?float,
          passcodeRequiredIn: ?float
        )

        # Sets a passcode (no current one), changes it, or removes it (no new one).
        method SetPasscode(current: ?string, new: ?string) -> ()

        # Unlocks the device; the first unlock since start releases every class key.
        # A Lock that arrives before it is answered wins (UnlockInterrupted).
        method Unlock(passcode: string) -> ()

        # Locks the device: locked surfaces change at once; class keys are purged
        # as their class prescribes. It wins over every Unlock sent before it and not
        # yet answered: once it has replied, the device stays locked.
        method Lock() -> ()

        # Crypto-erases every timeline. "confirm" must be "WIPE".
        method Wipe(confirm: string) -> ()

        # The current settings.
        method GetSettings() -> (settings: Settings)

        # Changes the given settings and returns all of them.
        # "hideSensitiveComplications" is one of "off", "all" or "selected".
        method SetSettings(
          lockScreenWidgetsAccess: ?bool,
          hiddenLockScreenWidgets: ?[]string,
          hideSensitiveComplications: ?string,
          hiddenComplications: ?[]string
        ) -> (settings: Settings)

        # Marks the passcode out of step with the login password (a reset without the
        # old password, or a login password the device refused after PAM accepted it):
        # pam_widgetd.so sends nothing until a SetPasscode brings it back in step.
        method ReportPasscodeOutOfStep() -> ()

        # Streams state and settings changes (call with "more"); the first reply is
        # the current state.
        method Monitor() -> (event: DeviceEvent)

        # The caller may not do this.
        error PermissionDenied ()

        # A passcode is required for this operation, or the current one is missing.
        error PasscodeRequired ()

        # The passcode is wrong; "retryAfter" seconds must pass before the next try.
        error WrongPasscode (failedAttempts: int, retryAfter: ?float)

        # Too many failed attempts: try again after "retryAfter" seconds.
        error TryAgainLater (retryAfter: float)

        # The passcode was right, but a Lock arrived while it was being checked, and a Lock
        # wins: the device stays locked. Not counted as a failed attempt; unlock again.
        error UnlockInterrupted ()

        # The device was wiped after too many failed attempts.
        error Wiped ()

        # The state directory failed (disk full, I/O error, a damaged file); "reason" names the
        # operation, never content. The previous data is kept.
        error StorageFailure (reason: string)

        """#)

    /// `io.widgetd.Provider`: widget extensions write and read their timelines.
    public static let provider = InterfaceDefinition(text: #"""
        # For widget extensions: write and read their widgets' timelines.
        #
        # A provider writes only widgets whose id starts with its provider id; the
        # protection class is the one the administrator registered for it.
        interface io.widgetd.Provider

        # One field of an entry.
        type Field (
          # Any JSON value; with a role, one that fits it.
          value: object,
          # One of "sensitive" (hidden when privacy requires) or "public" (never
          # hidden); absent for an ordinary field.
          privacy: ?string,
          # What the field is on a drawn widget: one of "title", "value", "detail",
          # "icon" (a freedesktop icon name: a-z, 0-9 and "-", at most 64 bytes),
          # "gauge" (a number within "range") or "date" (RFC 3339, drawn in "style").
          # Absent: data for custom hosts, not drawn once any field has a role.
          role: ?string,
          # A gauge's [min, max]; absent is [0, 1].
          range: ?[]float,
          # How a date is drawn: one of "time", "date", "relative" or "timer".
          style: ?string
        )

        # Something a host may perform on an entry. A host names only its "id": what it
        # does is the provider's, fixed here.
        type Action (
          # Letters, digits, ".", "_" and "-", at most 64 bytes; unique in its entry.
          id: string,
          title: string,
          # A freedesktop icon name.
          icon: ?string,
          # One of "button" or "toggle".
          kind: string,
          # A toggle's state as shown; only on a toggle, which needs it.
          isOn: ?bool,
          # One of "alwaysAllowed", "requiresAuthentication" (the default) or
          # "requiresLocalDeviceAuthentication": what a locked device asks first.
          authentication: ?string,
          # "sensitive": the title is redacted as a sensitive field's value is.
          privacy: ?string
        )

        # How relevant an entry is, and for how many seconds.
        type Relevance (score: float, duration: float)

        # One timeline entry. "date" is RFC 3339. At most 8 actions.
        type Entry (
          date: string,
          relevance: ?Relevance,
          fields: [string]Field,
          actions: ?[]Action
        )

        # When the provider wants to be asked for a new timeline.
        type ReloadPolicy (
          # One of "atEnd", "after" or "never".
          kind: string,
          # RFC 3339; only with "after".
          date: ?string
        )

        # An entry-shaped sample without private data, shown while content is
        # unavailable.
        type Placeholder (fields: [string]Field, actions: ?[]Action)

        # Replaces a widget's timeline; the placeholder is kept until replaced.
        method PutTimeline(
          widget: string,
          family: ?string,
          entries: []Entry,
          policy: ?ReloadPolicy,
          placeholder: ?Placeholder
        ) -> (generation: int)

        # Appends entries to a readable timeline.
        method AppendEntries(widget: string, entries: []Entry) -> (generation: int)

        # Reads a timeline back; it must be readable.
        method GetTimeline(widget: string) -> (
          family: ?string,
          entries: []Entry,
          policy: ReloadPolicy,
          generation: int
        )

        # Closes an open timeline: its plaintext is dropped from memory.
        method CloseTimeline(widget: string) -> ()

        # Deletes a widget's timeline.
        method DeleteTimeline(widget: string) -> ()

        # Streams reload requests (call with "more"): for the one provider named, which
        # the caller must be allowed to provide (an administrator may name any), else for
        # every provider the caller may provide (an administrator: every provider). On a
        # per-user instance every app runs as the owner, so a provider names itself.
        # "reason" is one of "due" or "requested".
        method WatchReloads(provider: ?string) -> (widget: string, reason: string)

        # Streams the actions hosts perform on the caller's widgets (call with "more"), or on
        # those of the provider named. Each performed action goes to one watching connection
        # of its widget's provider, once. "id" is the delivery's own number; "action" the
        # action's id; "isOn" a toggle's new state (the opposite of what was shown);
        # "whileLocked" whether the device was locked when it was delivered.
        method WatchActions(provider: ?string) -> (
          id: int,
          widget: string,
          action: string,
          isOn: ?bool,
          surface: string,
          whileLocked: bool
        )

        # A registered provider, as its providers.d/ file declares it.
        type ProviderInfo (
          id: string,
          # Its protection class: "complete", "completeUnlessOpen",
          # "completeUntilFirstUserAuthentication" or "none".
          class: string,
          # User= and Group=: the uid and gid that may write for it; absent when not set.
          user: ?int,
          group: ?int,
          # App=: the Flatpak application id whose sandboxed app may write for it; absent when not set.
          app: ?string,
          # The providers.d/ file that registers it.
          file: string,
          # MaxWidgets= and MaxBytes= in force.
          maxWidgets: int,
          maxBytes: int
        )

        # A providers.d/ file that registers no provider because it is not valid.
        type DisabledProviderFile (
          file: string,
          # The line of the problem; absent when the file as a whole is at fault.
          line: ?int,
          reason: string
        )

        # The registered providers in id order: every one to an administrator, to anyone
        # else those whose User=/Group= the caller matches. "disabled" (to administrators
        # only; absent when there is none) lists the providers.d/ files that register
        # nothing, and why: widgetd --check-config prints the same.
        method ListProviders() -> (providers: []ProviderInfo, disabled: ?[]DisabledProviderFile)

        # The timeline's class key is not available in the current state.
        error ProtectedDataUnavailable ()

        # The caller may not do this. For a widget the caller may not provide, "provider"
        # names the widget's provider and "user"/"group" its User=/Group= when it is
        # registered (the uid and gid that may write for it).
        error PermissionDenied (provider: ?string, user: ?int, group: ?int)

        # No timeline is stored for this widget.
        error WidgetNotFound (widget: string)

        # No provider with this id is registered.
        error ProviderNotRegistered (provider: string)

        # The timeline is not valid; "reason" says why.
        error InvalidTimeline (reason: string)

        # The timeline exceeds the limit, in bytes; or the write would take the provider past
        # its quota: "limit" is its MaxBytes= (bytes of stored timeline files) or its
        # MaxWidgets= (stored widgets), whichever it would pass. Nothing was changed.
        error TooLarge (limit: int)

        # The device was wiped.
        error Wiped ()

        # Too many calls already wait for the stored timelines to be indexed after a start
        # (PutTimeline and AppendEntries are judged against the provider's quota once every
        # timeline is known); try again in "retryAfter" seconds. Nothing was changed.
        error TryAgainLater (retryAfter: float)

        # The state directory failed (disk full, I/O error, a damaged file); "reason" names the
        # operation, never content. The previous data is kept.
        error StorageFailure (reason: string)

        """#)

    /// `io.widgetd.Host`: what each surface may show.
    public static let host = InterfaceDefinition(text: #"""
        # For the programs that draw widgets: what each surface may show.
        interface io.widgetd.Host

        # A stored widget.
        type WidgetInfo (
          widget: string,
          provider: string,
          kind: string,
          family: ?string,
          # The provider's protection class.
          class: string,
          generation: int
        )

        # How relevant an entry is, and for how many seconds.
        type Relevance (score: float, duration: float)

        # One field as presented.
        type PresentedField (
          # Any JSON value; a placeholder's value (or null) when redacted.
          value: object,
          # One of "sensitive" or "public"; absent for an ordinary field.
          privacy: ?string,
          # True when the real value was replaced.
          redacted: ?bool,
          # As stored: "title", "value", "detail", "icon", "gauge" or "date". Kept when
          # redacted: a redacted gauge is drawn empty, a redacted date not at all.
          role: ?string,
          # A gauge's [min, max] (absent: [0, 1]); when redacted, the placeholder's.
          range: ?[]float,
          # A date's style: "time", "date", "relative" or "timer".
          style: ?string
        )

        # An action of the presented entry (the placeholder's, in placeholder mode).
        type PresentedAction (
          id: string,
          # Null when redacted and the placeholder has no action of this id.
          title: ?string,
          icon: ?string,
          # One of "button" or "toggle".
          kind: string,
          isOn: ?bool,
          # One of "alwaysAllowed", "requiresAuthentication" or
          # "requiresLocalDeviceAuthentication".
          authentication: string,
          # Whether PerformAction runs it now, without an unlock.
          available: bool,
          # "unlock" when it is not available until an unlock.
          requires: ?string,
          # True when the real title was replaced.
          redacted: ?bool
        )

        # The entry as presented. "date" is RFC 3339; a placeholder has none.
        type PresentedEntry (
          date: ?string,
          relevance: ?Relevance,
          fields: [string]PresentedField
        )

        # What a surface may show of a widget now.
        type Presentation (
          widget: string,
          # One of "homeScreen", "lockScreen", "alwaysOn" or "remote".
          surface: string,
          # One of "content", "redacted" or "placeholder".
          mode: string,
          # Each one of "placeholder", "privacy" or "invalidated".
          reasons: []string,
          luminanceReduced: bool,
          stale: bool,
          entry: PresentedEntry,
          # RFC 3339: the date of the next entry, if any.
          validUntil: ?string,
          # What the host may perform; absent when there is nothing.
          actions: ?[]PresentedAction
        )

        # The stored widgets, of one provider if given, in widget id order; works in every
        # state. Without "limit" every widget; with it (1 or more) one page, and "next" while
        # more remain: pass it as "after" for the next page, which holds the ids after it.
        method ListWidgets(provider: ?string, after: ?string, limit: ?int) -> (widgets: []WidgetInfo, next: ?string)

        # What a surface may show of a widget now.
        method GetPresentation(widget: string, surface: string) -> (presentation: Presentation)

        # Streams a widget's presentation whenever it changes (call with "more");
        # the first reply is the current presentation.
        method Watch(widget: string, surface: string) -> (presentation: Presentation)

        # Asks providers to reload their timelines, all or those given.
        method ReloadTimelines(provider: ?string, kind: ?string) -> ()

        # Performs an action of the presentation "surface" shows now. "outcome" is one of
        # "delivered" (its provider has it), "held" (it waits for an unlock within
        # ActionHoldSec=; a caller that asked for more replies then hears "delivered" or "expired")
        # or "expired" (no unlock came, the lock or the action went away, or a newer held
        # action of the connection replaced it).
        method PerformAction(widget: string, surface: string, action: string) -> (outcome: string)

        # Streams the stored widgets as they change (call with "more"): "event" is one of
        # "added", "removed" or "changed" (a new family or class).
        method WatchWidgets() -> (event: string, widget: WidgetInfo)

        # The action is not in what the surface shows now.
        error ActionNotAvailable (action: string)

        # No connection of the widget's provider watches its actions.
        error ProviderUnavailable (provider: string)

        # The caller may not do this.
        error PermissionDenied ()

        # No timeline is stored for this widget.
        error WidgetNotFound (widget: string)

        # No provider with this id is registered.
        error ProviderNotRegistered (provider: string)

        # The widget's class may not be shown on this surface.
        error UnavailableOnSurface (surface: string)

        # The device was wiped.
        error Wiped ()

        # Too many calls already wait for the stored timelines to be indexed after a start
        # (ListWidgets and ReloadTimelines answer once every timeline is known); try again in
        # "retryAfter" seconds. Nothing was changed.
        error TryAgainLater (retryAfter: float)

        # The state directory failed (disk full, I/O error, a damaged file); "reason" names the
        # operation, never content. The previous data is kept.
        error StorageFailure (reason: string)

        """#)
}
