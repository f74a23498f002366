import StoreFiles

/// Whether the passcode is still the login password (DESIGN §8), in a durable file of
/// its own: `pam_widgetd.so` sends nothing while it says "out of step", so that a
/// password changed behind widgetd's back costs at most one counted attempt.
///
/// The file is not authenticated: whoever can write the state directory can do far
/// worse than flip it, and either value only decides whether PAM sends a passcode
/// that is counted like any other. It fails closed: a file that is there but cannot
/// be read, or says anything else, reads as out of step; no file reads as in step.
package enum PasscodeStepFile {
    package static let fileName = "passcode-step"
    package static let inStep = Array("in-step\n".utf8)
    private static let outOfStep = Array("out-of-step\n".utf8)

    package static func load(stateDirectory: String) -> Bool {
        let bytes: [UInt8]?
        do { bytes = try FileSystem.readFile("\(stateDirectory)/\(fileName)", limit: 64) } catch { return false }
        guard let bytes else { return true }
        return bytes == inStep
    }

    package static func save(inStep: Bool, stateDirectory: String) throws(KeyError) {
        try throughFiles { () throws(FileError) in
            try FileSystem.writeAtomically(directory: stateDirectory, name: fileName, bytes: inStep ? Self.inStep : outOfStep)
        }
    }
}
