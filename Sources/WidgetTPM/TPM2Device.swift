import CTPM2
import Dispatch
import SecureMemory
import Synchronization

/// A connection to one TPM 2.0 through tpm2-tss's ESAPI: what widgetd seals its device
/// key and passcode tangle with, and where its rollback counter lives.
///
/// The TCTI string chooses the transport: `device:/dev/tpmrm0` (the kernel's resource
/// manager), `device:/dev/tpm0`, `swtpm:path=/run/swtpm/sock`. No resource manager is
/// assumed: every object and session this type loads is flushed before the call that
/// loaded it returns, so nothing is left on a raw `/dev/tpm0` or a swtpm (which answer
/// `0x902`/`0x903` after three leaks).
///
/// Thread safety: every operation takes an internal lock (an ESAPI context must not be
/// used by two threads at once), so one device may be shared between threads.
package final class TPM2Device: @unchecked Sendable {
    /// The TCTI string this device was opened with (not secret).
    package let tcti: String
    /// The NV indices this device keeps widgetd's state in: the ones it was opened
    /// with until ``adopt(_:authValue:)`` names the store's own.
    package var indices: TPM2Indices { chosen.withLock { $0.indices } }
    private let tctiContext: OpaquePointer
    let context: OpaquePointer
    private let lock = Mutex<Void>(())
    /// Its own lock, not the device's: read inside operations that hold that one.
    private let chosen: Mutex<NVPlacement>
    /// The Unix socket of a swtpm or mssim TCTI (`path=`); `nil` for a character device.
    private let socketPath: String?
    /// How long one operation may wait for the TPM before its sockets are shut down.
    private let ioTimeout: Duration

    /// Where the store's NV state is, and the auth value its indices were defined with.
    struct NVPlacement: Sendable {
        var indices: TPM2Indices
        /// The indices' own auth value, known only to the store (kept in its state
        /// directory, mode 0600): `nil` for indices defined before stores had one, which
        /// open with an empty auth value or the owner's (``TPM2Indices/standard``).
        var authValue: SecureBytes?
    }

    /// The indices and their auth value, as one read.
    var placement: NVPlacement { chosen.withLock { $0 } }

    /// How long one send or receive to a TPM behind a socket may take by default: far
    /// above any command widgetd sends (milliseconds on swtpm, well under a second on a
    /// hardware TPM), far below a daemon that seems hung.
    package static let defaultIOTimeout: Duration = .seconds(30)

    /// Opens the TPM that `tcti` names. Every send and receive on a socket TCTI (swtpm,
    /// mssim) is bounded by `ioTimeout`: a TPM that takes a command and never answers is
    /// ``TPM2Error/noAnswer(command:code:)``, not a read that never returns.
    ///
    /// The corresponding C functions are `Tss2_TctiLdr_Initialize` and `Esys_Initialize`.
    /// Opening does not send `TPM2_Startup` (the firmware or swtpm's `startup-clear` did);
    /// ``startup()`` does, after a simulated reboot.
    package init(tcti: String, indices: TPM2Indices = .standard, ioTimeout: Duration = TPM2Device.defaultIOTimeout)
        throws(TPM2Error)
    {
        self.tcti = tcti
        self.chosen = Mutex(NVPlacement(indices: indices, authValue: nil))
        var tctiContext: OpaquePointer?
        let loaded = Tss2_TctiLdr_Initialize(tcti, &tctiContext)
        guard loaded == 0, let tctiContext else {
            throw .unavailable(tcti: tcti, code: TPM2ResponseCode(rawValue: loaded))
        }
        self.socketPath = Self.socketPath(tcti)
        self.ioTimeout = ioTimeout
        var context: OpaquePointer?
        let initialized = Esys_Initialize(&context, tctiContext, nil)
        guard initialized == 0, let context else {
            var tctiContext: OpaquePointer? = tctiContext
            Tss2_TctiLdr_Finalize(&tctiContext)
            throw .unavailable(tcti: tcti, code: TPM2ResponseCode(rawValue: initialized))
        }
        self.tctiContext = tctiContext
        self.context = context
    }

    /// The `path=` of a `swtpm:` or `mssim:` TCTI string, if it names one.
    static func socketPath(_ tcti: String) -> String? {
        guard tcti.hasPrefix("swtpm:") || tcti.hasPrefix("mssim:") else { return nil }
        let options = tcti.drop(while: { $0 != ":" }).dropFirst().split(separator: ",")
        return options.first { $0.hasPrefix("path=") }.map { String($0.dropFirst(5)) }
    }

    deinit {
        var context: OpaquePointer? = context
        Esys_Finalize(&context)
        var tctiContext: OpaquePointer? = tctiContext
        Tss2_TctiLdr_Finalize(&tctiContext)
    }

    /// Uses `indices`, defined with `authValue`, from now on: the store's own, once its
    /// state directory names them or they were chosen for it. `nil`: indices defined
    /// before stores had an auth value of their own (empty, or the owner's).
    package func adopt(_ indices: TPM2Indices, authValue: SecureBytes?) {
        chosen.withLock { $0 = NVPlacement(indices: indices, authValue: authValue) }
    }

    /// Every NV index defined on this TPM, by anyone.
    ///
    /// The corresponding C function is `Esys_GetCapability` (`TPM2_CAP_HANDLES`).
    package func definedNVIndices() throws(TPM2Error) -> Set<UInt32> {
        try locked { () throws(TPM2Error) -> Set<UInt32> in
            var found: Set<UInt32> = []
            var next = UInt32(ctpm2_hr_nv_index)
            while true {
                var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
                defer { Esys_Free(data) }
                var more: TPMI_YES_NO = 0
                try check(
                    Esys_GetCapability(
                        context, ctpm2_tr_none, ctpm2_tr_none, ctpm2_tr_none, ctpm2_cap_handles, next, 254, &more, &data),
                    "GetCapability")
                guard let data else { return found }
                let list = data.pointee.data.handles
                var last: UInt32?
                withUnsafeBytes(of: list.handle) { raw in
                    for handle in raw.bindMemory(to: UInt32.self).prefix(Int(list.count)) where handle >> 24 == 0x01 {
                        found.insert(handle)
                        last = handle
                    }
                }
                guard more != 0, let last else { return found }
                next = last + 1
            }
        }
    }

    /// A pair of indices no one on this TPM uses yet (``TPM2Indices/choose(avoiding:random:)``),
    /// for a new store. Throws `.noFreeIndices` when every pair of the range is taken.
    package func chooseFreeIndices(
        random: (UInt32) -> UInt32 = { UInt32.random(in: 0..<$0) }
    ) throws(TPM2Error) -> TPM2Indices {
        guard let indices = TPM2Indices.choose(avoiding: try definedNVIndices(), random: random) else {
            throw .noFreeIndices
        }
        return indices
    }

    /// Starts the TPM after a reset (`TPM2_Startup(TPM_SU_CLEAR)`); a TPM already started
    /// is not an error.
    package func startup() throws(TPM2Error) {
        try locked { () throws(TPM2Error) in
            let code = TPM2ResponseCode(rawValue: Esys_Startup(context, ctpm2_startup_clear))
            guard code.rawValue == 0 || code.matches(.initialize) else { throw TPM2Error.from(code, command: "Startup") }
        }
    }

    /// Runs `body` holding the device's lock, under the I/O watchdog: if the TPM behind a
    /// Unix socket has not answered within `ioTimeout`, the connections to that socket are
    /// shut down, which wakes tpm2-tss's wait (a poll without a timeout, on a connection
    /// the TCTI opens per command) with an I/O error (``TPM2Error/noAnswer(command:code:)``).
    /// A character device (`/dev/tpmrm0`) has no socket: the kernel's driver times its
    /// commands out. A TCP swtpm (`host=`, `port=`) is not watched.
    func locked<Result>(_ body: () throws(TPM2Error) -> Result) throws(TPM2Error) -> Result {
        try lock.withLock { (_) throws(TPM2Error) -> Result in
            guard let socketPath else { return try body() }
            let watchdog = DispatchWorkItem { _ = ctpm2_shutdown_sockets_to(socketPath) }
            let (seconds, attoseconds) = ioTimeout.components
            let nanoseconds = Int(clamping: seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: watchdog)
            defer { watchdog.cancel() }
            return try body()
        }
    }

    /// Turns an ESAPI return code into a typed error: 0 is success.
    func check(_ rc: TSS2_RC, _ command: String) throws(TPM2Error) {
        guard rc != 0 else { return }
        throw TPM2Error.from(TPM2ResponseCode(rawValue: rc), command: command)
    }

    /// Flushes a transient object or session. A failure is not reported: the handle
    /// is gone either way from ESAPI's view, and the caller's own error matters more.
    ///
    /// The corresponding C function is `Esys_FlushContext`.
    func flush(_ handle: ESYS_TR) {
        _ = Esys_FlushContext(context, handle)
    }
}
