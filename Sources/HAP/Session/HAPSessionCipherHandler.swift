import NIOCore

/// Encrypts and decrypts every byte of a verified connection. Added at the front of the
/// pipeline, under the HTTP decoder, right after the plaintext pair-verify M4 answer is flushed.
final class HAPSessionCipherHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var cipher: HAPSessionCipher
    private var pending: [UInt8] = []

    init(keys: HAPSessionKeys) {
        cipher = HAPSessionCipher(keys: keys)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        do {
            let plaintext = try cipher.open(&pending)
            if !plaintext.isEmpty {
                context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: plaintext)))
            }
        } catch {
            // A frame that does not open means the peer lost sync or is not who it claimed: close.
            context.close(promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        let sealed = cipher.seal(buffer.readableBytesView)
        context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: sealed)), promise: promise)
    }
}
