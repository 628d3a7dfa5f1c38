import HummingbirdCore
import Logging
import NIOCore

/// Every connection of the live view's server, guarded: closed when nothing has come from the
/// peer for `readTimeout` (a client that connects and says nothing, or stalls in the middle of
/// its request head) and when its pipeline reports an error no handler dealt with (a request head
/// over the limits). Hummingbird's WebSocket-upgrading channel neither times out a connection
/// before its first request head nor closes one whose head fails to parse: without this, each
/// such connection would stay open for as long as its client liked. A viewer is never idle that
/// long: it answers the server's pings every 10 s.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    /// The longest silence from the peer.
    let readTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers([IdleStateHandler(readTimeout: readTimeout), CloseWhenSilent()])
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            // At the end of the pipeline as set up for the request head: errors of the HTTP decoder reach it.
            try channel.pipeline.syncOperations.addHandler(CloseOnError())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Closes its channel on a read-idle event (`IdleStateHandler` before it).
final class CloseWhenSilent: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Closes its channel on an error that reached it, after passing it on.
final class CloseOnError: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }
}
