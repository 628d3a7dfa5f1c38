import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import PoseCore

/// The live view's HTTP server: the page at `/` and the viewers' WebSocket at `/ws` (Hummingbird
/// with its WebSocket upgrade), nothing else: no path reaches a file, every other path is 404.
///
/// It listens where ``address`` says (loopback unless the user names another address). On a
/// loopback address a WebSocket is accepted only when the request names this server as its host
/// and, from a browser, comes from this server's own page (its `Origin`), so another web site the
/// user visits cannot read the frames through the user's browser (cross-site WebSocket
/// hijacking, DNS rebinding). At most ``maximumViewers`` viewers at once; idle HTTP connections
/// close after 10 s, viewers that stop answering pings after 20 s, any connection silent for
/// ``silenceLimit`` (30 s), and a request whose head breaks the limits (8 KiB a field, 16 KiB in
/// all, 100 fields) at once.
public final class ViewServer: @unchecked Sendable {
    public let feed: LiveFeed
    /// Where to listen, as asked (port 0: any free port).
    public let address: ListenAddress
    /// The page served at `/`.
    public let page: String
    /// More viewers at once are refused (HTTP 503).
    public let maximumViewers: Int
    /// Seconds a connection may stay silent before it is closed (a viewer answers pings every 10 s).
    public let silenceLimit: Double
    /// Seconds between the server's pings; a viewer that has not answered one by the next is closed.
    public let pingPeriod: Double

    private let lock = NSLock()
    private var serving: Task<Void, Error>?
    /// The address bound once started.
    private var boundAddress: ListenAddress?
    /// The viewers' channels, closed on ``stop()``.
    private var viewerChannels: [ObjectIdentifier: any Channel] = [:]

    /// The viewers' WebSocket channels open now (a closed viewer's channel leaves at once).
    public var openViewerChannels: Int { lock.withLock { viewerChannels.count } }

    public init(feed: LiveFeed, address: ListenAddress = .default, page: String = ViewPage.html, maximumViewers: Int = 32,
                silenceLimit: Double = 30, pingPeriod: Double = 10) {
        self.feed = feed
        self.silenceLimit = silenceLimit
        self.pingPeriod = pingPeriod
        self.address = address
        self.page = page
        self.maximumViewers = maximumViewers
    }

    /// Binds and starts serving; returns the address bound (with the port the system chose for
    /// port 0). Throws ``ViewServerError/cannotListen(_:_:)`` when the address cannot be bound
    /// (the port is in use, the address is not this machine's, permission).
    public func start() async throws -> ListenAddress {
        let started = StartSignal()
        let application = Application(
            router: makeRouter(),
            server: HTTPServerBuilder { [self] responder in
                GuardedChildChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(
                    http1: .init(idleTimeout: .seconds(10),
                                 httpDecoderConfiguration: .init(maxHeaderFieldSize: 8 << 10, maxHeaderListSize: 16 << 10, maxHeaderFieldCount: 100)),
                    ws: .init(maxFrameSize: 1 << 14, autoPing: .enabled(timePeriod: .milliseconds(Int64(pingPeriod * 1000))), closeTimeout: .milliseconds(250))
                )) { [self] request, channel, _ in
                    upgrade(request, channel)
                }, readTimeout: .nanoseconds(Int64(silenceLimit * 1e9)))
            },
            configuration: ApplicationConfiguration(address: .hostname(address.host, port: address.port), reuseAddress: true),
            onServerRunning: { channel in started.succeed(port: channel.localAddress?.port) },
            logger: Logger(label: "posekit.view", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        // On the server's own thread: a busy cooperative pool never holds back a page or a frame.
        let task = Task(executorPreference: ServerExecutor.shared) {
            do {
                try await application.run()
                started.fail(CancellationError())   // stopped before it was running
            } catch {
                started.fail(error)
                throw error
            }
        }
        lock.withLock { serving = task }
        do {
            let port = try await started.wait()
            let bound = ListenAddress(host: address.host, port: port ?? address.port)
            lock.withLock { boundAddress = bound }
            return bound
        } catch {
            task.cancel()
            throw ViewServerError.cannotListen(address, Self.reason(error))
        }
    }

    /// Stops serving: every viewer's connection ends (the page shows it), the listening socket
    /// closes. Returns within about a second, whatever the viewers do.
    public func stop() async {
        feed.stop()
        // Each viewer's connection ends now (after the source's end message, if it has one to send):
        // a moment to close cleanly, then a stalled one's socket is closed here.
        let deadline = MonotonicClock.now() + 0.3
        while lock.withLock({ !viewerChannels.isEmpty }) && MonotonicClock.now() < deadline {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        let (task, channels) = lock.withLock { () -> (Task<Void, Error>?, [any Channel]) in
            defer { serving = nil; viewerChannels.removeAll() }
            return (serving, Array(viewerChannels.values))
        }
        for channel in channels { channel.close(promise: nil) }
        guard let task else { return }
        task.cancel()
        // Graceful shutdown waits for every HTTP connection to go idle (a browser keeps one alive,
        // and a page reconnects): allowed half a second, then stop returns and the process may exit
        // (Ctrl-C ends `posekit view` within a second whatever the browsers do).
        let finished = NSLock(), flag = FinishedFlag()
        Task { _ = await task.result; finished.withLock { flag.done = true } }
        let shutdownDeadline = MonotonicClock.now() + 0.5
        while !finished.withLock({ flag.done }) && MonotonicClock.now() < shutdownDeadline {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    /// Whether the serving task has ended (read under its lock).
    private final class FinishedFlag: @unchecked Sendable { var done = false }

    // MARK: Routes

    private func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let page = ByteBuffer(string: self.page)
        router.get("/") { _, _ in
            Response(status: .ok, headers: Self.pageHeaders, body: .init(byteBuffer: page))
        }
        // Reached only when the upgrade was refused (not a WebSocket request, too many viewers, a foreign origin).
        router.get("/ws") { [self] request, _ in
            let full = feed.statistics.snapshot(recent: 0).viewers >= maximumViewers
            return Self.plain(full ? .serviceUnavailable : .badRequest,
                              full ? "too many viewers (at most \(maximumViewers))\n" : "a WebSocket from this server's page is needed here\n")
        }
        return router
    }

    /// The page's headers: never cached, never framed by another site, scripts and styles only its own inline ones.
    static let pageHeaders: HTTPFields = {
        var fields: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        for (name, value) in [
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Content-Security-Policy",
             "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src blob: data:; connect-src 'self'; frame-ancestors 'none'"),
        ] {
            fields[.init(name)!] = value
        }
        return fields
    }()

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Whether `request` becomes a viewer's WebSocket.
    private func upgrade(_ request: HTTPRequest, _ channel: any Channel)
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard request.path == "/ws", let bound = lock.withLock({ boundAddress }),
              Self.accepts(authority: request.authority, origin: request.headerFields[.origin], bound: bound),
              feed.statistics.snapshot(recent: 0).viewers < maximumViewers
        else { return .dontUpgrade }
        let key = ObjectIdentifier(channel)
        lock.withLock { viewerChannels[key] = channel }
        return .upgrade([:]) { [self] inbound, outbound, _ in
            defer { lock.withLock { _ = viewerChannels.removeValue(forKey: key) } }
            try await ViewerConnection(feed: feed).run(inbound: inbound, outbound: outbound)
        }
    }

    /// The host a request names (`authority`, from `Host`) and the page it comes from (`origin`),
    /// for a server bound at `bound`: on loopback the host must be this server's loopback name
    /// and port; the origin, when a browser sends one, must be this server (`http://` + the host).
    static func accepts(authority: String?, origin: String?, bound: ListenAddress) -> Bool {
        guard let authority = authority?.lowercased() else { return false }
        if bound.isLoopback {
            let names = ["127.0.0.1", "localhost", "[::1]", bound.host.contains(":") ? "[\(bound.host)]" : bound.host]
            guard names.contains(where: { authority == "\($0):\(bound.port)" }) else { return false }
        }
        guard let origin = origin?.lowercased() else { return true }
        return origin == "http://\(authority)"
    }

    /// The system's reason for a failed bind, in a few words.
    static func reason(_ error: any Error) -> String {
        if let io = error as? IOError {
            switch io.errnoCode {
            case EADDRINUSE: return "the port is in use (another program listens there; pick another with --listen ADDRESS:PORT, or port 0 for any free one)"
            case EADDRNOTAVAIL: return "that address is not one of this machine's"
            case EACCES: return "permission denied (ports below 1024 need privileges)"
            default: return String(cString: strerror(io.errnoCode))
            }
        }
        if error is SocketAddressError.UnknownHost { return "the host name does not resolve" }
        return String(describing: error)
    }
}

/// Why the live view's server could not start.
public enum ViewServerError: Error, CustomStringConvertible {
    /// The address could not be bound, and why.
    case cannotListen(ListenAddress, String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): return "cannot listen on \(address): \(reason)"
        }
    }
}

/// The server's start, told once: bound (with its port) or failed.
private final class StartSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Int?, any Error>?
    private var waiter: CheckedContinuation<Int?, any Error>?

    func succeed(port: Int?) { settle(.success(port)) }
    func fail(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ outcome: Result<Int?, any Error>) {
        lock.lock()
        guard result == nil else { lock.unlock(); return }
        result = outcome
        let wake = waiter
        waiter = nil
        lock.unlock()
        wake?.resume(with: outcome)
    }

    func wait() async throws -> Int? {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(with: result)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
