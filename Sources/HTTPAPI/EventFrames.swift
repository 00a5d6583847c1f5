import GatewayCore
import NIOCore

/// One event as HTTP's streams send it, made once for all their clients from the one JSON the
/// event was written as: the Server-Sent Event (`event: <type>\ndata: <JSON>\n\n`) and the whole
/// unmasked WebSocket text frame (`{"event":"<type>","data":<JSON>}`). A form no client takes now
/// is left empty.
struct EventFrames: Sendable {
    let event: StreamEvent
    let serverSent: ByteBuffer
    let socket: ByteBuffer

    init(_ event: StreamEvent, serverSent: Bool, socket: Bool, allocator: ByteBufferAllocator) {
        self.event = event
        self.serverSent = serverSent ? Self.serverSent(event, allocator: allocator) : ByteBuffer()
        self.socket = socket ? Self.socketFrame(event, allocator: allocator) : ByteBuffer()
    }

    static func serverSent(_ event: StreamEvent, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 17 + event.type.utf8.count + event.payload.count)
        buffer.writeString("event: ")
        buffer.writeString(event.type)
        buffer.writeString("\ndata: ")
        buffer.writeBytes(event.payload)
        buffer.writeString("\n\n")
        return buffer
    }

    static func socketFrame(_ event: StreamEvent, allocator: ByteBufferAllocator) -> ByteBuffer {
        let length = 20 + event.type.utf8.count + event.payload.count
        var buffer = allocator.buffer(capacity: length + 10)
        buffer.writeInteger(UInt8(0x81))  // FIN, text
        if length < 126 {
            buffer.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(length))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(length))
        }
        buffer.writeString(#"{"event":""#)
        buffer.writeString(event.type)
        buffer.writeString(#"","data":"#)
        buffer.writeBytes(event.payload)
        buffer.writeString("}")
        return buffer
    }

    /// A close frame: `code`, then `reason` (at most 123 bytes of UTF-8).
    static func closeFrame(_ code: UInt16, reason: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 4 + reason.utf8.count)
        buffer.writeBytes([0x88, UInt8(2 + reason.utf8.count)])
        buffer.writeInteger(code)
        buffer.writeString(reason)
        return buffer
    }
}
