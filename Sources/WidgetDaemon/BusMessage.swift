import CSystemd
import Glibc

/// A received sd-bus message, borrowed for the callback it was passed to.
struct BusMessage {
    let raw: OpaquePointer

    /// The object path it concerns.
    var path: String? { sd_bus_message_get_path(raw).map { String(cString: $0) } }
    /// The unique name of the connection that sent it, as the bus daemon wrote it
    /// (`org.freedesktop.DBus` for the bus driver); a client cannot choose it.
    var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }
    /// The name it was addressed to; `nil` for a broadcast.
    var destination: String? { sd_bus_message_get_destination(raw).map { String(cString: $0) } }
    /// The interface it belongs to.
    var interface: String? { sd_bus_message_get_interface(raw).map { String(cString: $0) } }
    /// The signal's or method's name.
    var member: String { sd_bus_message_get_member(raw).map { String(cString: $0) } ?? "" }
    /// The error name, if this is an error reply.
    var errorName: String? {
        guard sd_bus_message_is_method_error(raw, nil) > 0 else { return nil }
        return sd_bus_message_get_error(raw)?.pointee.name.map { String(cString: $0) } ?? "unknown"
    }

    /// Reads the arguments in order.
    var reader: Reader { Reader(message: self) }

    /// Reads a message's arguments (sd-bus's read cursor), each as the type it must be.
    struct Reader {
        let message: BusMessage
        private var raw: OpaquePointer { message.raw }

        private func check(_ result: Int32) throws(BusConnection.MalformedMessage) {
            guard result >= 0 else { throw BusConnection.MalformedMessage(member: message.member, code: -result) }
        }

        private static func type(_ character: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: character)) }

        /// A string (`s`), or with `objectPath` an object path (`o`).
        mutating func string(objectPath: Bool = false) throws(BusConnection.MalformedMessage) -> String {
            var value: UnsafePointer<CChar>?
            let result = sd_bus_message_read_basic(raw, Self.type(objectPath ? "o" : "s"), &value)
            try check(result == 0 ? -EBADMSG : result)
            guard let value else { throw BusConnection.MalformedMessage(member: message.member, code: EBADMSG) }
            return String(cString: value)
        }

        /// A boolean (`b`).
        mutating func bool() throws(BusConnection.MalformedMessage) -> Bool {
            var value: Int32 = 0
            let result = sd_bus_message_read_basic(raw, Self.type("b"), &value)
            try check(result == 0 ? -EBADMSG : result)
            return value != 0
        }

        /// A 32-bit unsigned integer (`u`).
        mutating func uint32() throws(BusConnection.MalformedMessage) -> UInt32 {
            var value: UInt32 = 0
            let result = sd_bus_message_read_basic(raw, Self.type("u"), &value)
            try check(result == 0 ? -EBADMSG : result)
            return value
        }

        /// Enters a container that must be there: `a`rray, `v`ariant, st`r`uct, dict `e`ntry.
        mutating func enter(_ type: Unicode.Scalar, _ contents: String) throws(BusConnection.MalformedMessage) {
            guard try enterIfPresent(type, contents) else {
                throw BusConnection.MalformedMessage(member: message.member, code: EBADMSG)
            }
        }

        /// Enters the next container; false at the end of the enclosing array.
        mutating func enterIfPresent(_ type: Unicode.Scalar, _ contents: String) throws(BusConnection.MalformedMessage) -> Bool {
            let result = sd_bus_message_enter_container(raw, Self.type(type), contents)
            try check(result)
            return result > 0
        }

        /// Leaves the container entered last.
        mutating func exit() throws(BusConnection.MalformedMessage) {
            try check(sd_bus_message_exit_container(raw))
        }

        /// Skips values of the given signature.
        mutating func skip(_ types: String) throws(BusConnection.MalformedMessage) {
            try check(sd_bus_message_skip(raw, types))
        }
    }
}
