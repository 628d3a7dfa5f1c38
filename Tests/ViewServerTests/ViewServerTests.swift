import Foundation
import FrameIO
import PoseCore
import Testing
import TestSupport
@testable import ViewServer
#if canImport(Glibc)
import Glibc
#endif

/// A server on a free loopback port with its feed; frames are published by the test.
struct TestServer {
    let feed: LiveFeed
    let server: ViewServer
    let address: ListenAddress

    static func start(maximumViewers: Int = 32) async throws -> TestServer {
        let feed = LiveFeed(hello: "{\"type\": \"hello\", \"test\": true}")
        // Timeouts far beyond any test's wait: on a loaded host a test thread may not read (and so not
        // answer a ping) for many seconds, and a test never decides by a wall clock.
        let server = ViewServer(feed: feed, address: ListenAddress(host: "127.0.0.1", port: 0), maximumViewers: maximumViewers,
                                silenceLimit: 600, pingPeriod: 600)
        return TestServer(feed: feed, server: server, address: try await server.start())
    }

    /// Publishes frame `index`: a small picture whose first pixel is `index % 256`, and a scene naming it.
    func publish(_ index: Int, width: Int = 64, height: Int = 48, arrival: Double = MonotonicClock.now()) {
        var image = RGBImage(width: width, height: height)
        for i in stride(from: 0, to: image.pixels.count, by: 3) { image.pixels[i] = UInt8(index % 256) }
        let frame = VideoFrame(image: image, index: index, time: Double(index) / 30, frameRate: Ratio(30, 1), isStillImage: false)
        feed.publish(LiveFeed.Frame(index: index, image: frame, arrival: arrival, scene: "{\"index\": \(index)}"))
    }

    /// A noisy picture (JPEG hardly compresses it): a large frame on the wire.
    func publishNoise(_ index: Int, width: Int = 640, height: Int = 480) {
        var generator = SystemRandomNumberGenerator()
        var image = RGBImage(width: width, height: height)
        for i in image.pixels.indices { image.pixels[i] = UInt8.random(in: 0...255, using: &generator) }
        let frame = VideoFrame(image: image, index: index, time: Double(index) / 30, frameRate: Ratio(30, 1), isStillImage: false)
        feed.publish(LiveFeed.Frame(index: index, image: frame, arrival: MonotonicClock.now(), scene: "{\"index\": \(index)}"))
    }
}

/// Runs blocking work (a socket's reads) on a thread of its own, off Swift's cooperative pool,
/// which the server's tasks need.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// A viewer that reads frames on its own thread, acknowledging each as the page does, and lets
/// the test wait until it has shown a frame at least as new as a given one.
final class ReadingViewer: @unchecked Sendable {
    let client: ViewerClient
    private let lock = NSLock()
    private(set) var shown: [Int] = []
    private(set) var hello: String?
    private(set) var endMessage: String?
    private(set) var closedCode: Int??
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []
    private var holdAcknowledgements = false

    init(_ address: ListenAddress) throws {
        client = try ViewerClient(address: address, timeout: 120)
        Thread { [self] in loop() }.start()
    }

    private func loop() {
        var pending: Int?
        while true {
            let message: ViewerClient.Message
            do { message = try client.receive() } catch { finish(code: nil); return }
            switch message {
            case .text(let text):
                let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
                switch object?["type"] as? String {
                case "hello": lock.withLock { hello = text }
                case "frame": pending = (object?["frame"] as? NSNumber)?.intValue
                case "end": lock.withLock { endMessage = text }; wakeAll()
                default: break
                }
            case .binary(let jpeg):
                guard let index = pending, (try? JPEG.decode(jpeg)) != nil else { continue }
                pending = nil
                lock.withLock { shown.append(index) }
                try? client.acknowledge(index)
                wakeAll()
            case .closed(let code):
                finish(code: code)
                return
            }
        }
    }

    private func finish(code: Int?) {
        lock.withLock { closedCode = .some(code) }
        wakeAll()
    }

    private func wakeAll() {
        let wake = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            let newest = shown.last ?? -1
            let done = closedCode != nil || endMessage != nil
            let ready = waiters.filter { done || $0.0 <= newest }
            waiters.removeAll { w in done || w.0 <= newest }
            return ready.map(\.1)
        }
        for continuation in wake { continuation.resume() }
    }

    /// Returns once a frame at least as new as `index` was shown (or the connection closed).
    func waitUntilShown(_ index: Int) async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if (shown.last ?? -1) >= index || closedCode != nil || endMessage != nil {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append((index, continuation))
                lock.unlock()
            }
        }
    }

    /// Returns once the connection has closed.
    func waitUntilClosed() async {
        await waitUntilShown(Int.max)
    }

    var frames: [Int] { lock.withLock { shown } }
    var isClosed: Bool { lock.withLock { closedCode != nil } }
}

/// Polls `condition` until it holds: a safety net for state another thread settles (the
/// outcome never depends on how long it takes; the limit only turns a hang into a failure).
func eventually(_ condition: () -> Bool, limit: Double = 60) async -> Bool {
    let start = MonotonicClock.now()
    while !condition() {
        if MonotonicClock.now() - start > limit { return false }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return true
}

/// One raw HTTP exchange: `request` sent as is, the response read until the server closes or
/// the head and `Content-Length` bytes have come; nil when the server closed without answering.
func rawExchange(_ address: ListenAddress, _ request: [UInt8]) throws -> String? {
    let socket = try ViewerClient.connect(address, timeout: 30)
    defer { close(socket) }
    var sent = 0
    while sent < request.count {
        let n = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { break }   // the server closed on us: what it answered is read below
        sent += n
    }
    var response: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
            throw ViewerClient.Failure(description: "the server neither answered nor closed the connection")
        }
        if n <= 0 { break }
        response += chunk[..<n]
        let text = String(decoding: response, as: UTF8.self)
        if let headEnd = text.range(of: "\r\n\r\n") {
            let head = text[..<headEnd.lowerBound].lowercased()
            if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
               let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
               text.utf8.count - text[..<headEnd.upperBound].utf8.count >= length {
                break
            }
        }
    }
    return response.isEmpty ? nil : String(decoding: response, as: UTF8.self)
}

func get(_ address: ListenAddress, _ path: String, extraHeaders: String = "") throws -> String? {
    try rawExchange(address, Array("GET \(path) HTTP/1.1\r\nHost: \(address)\r\n\(extraHeaders)Connection: close\r\n\r\n".utf8))
}

/// The server's own TCP sockets on `port` that are still open (established, or closed by the
/// peer and not yet by the server), read from the kernel's socket tables. Unlike this process's
/// resident memory, the count is not moved by the other suites running beside this one.
/// All of a `/proc` file: read to its end (Foundation's `String(contentsOfFile:)` stops after the
/// first page of a procfs file, whose size reads as 0: 27 of 200 socket lines).
func procFile(_ path: String) -> String {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return "" }
    defer { close(descriptor) }
    var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        bytes += chunk[..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func openServerSockets(port: Int) -> Int {
    var count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        for line in procFile(table).split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 3, let colon = fields[1].lastIndex(of: ":"),
                  Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port else { continue }
            // 01 ESTABLISHED, 08 CLOSE_WAIT: a socket the server holds for a connection.
            if fields[3] == "01" || fields[3] == "08" { count += 1 }
        }
    }
    return count
}

@Suite(.serialized) struct ViewServerTests {
    @Test func aViewerGetsTheHelloThenTheNewestFrameOnceItHasShownTheLast() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        let client = try ViewerClient(address: test.address, timeout: 60)
        let hello = try await onThread { try client.receive() }
        #expect(hello == .text("{\"type\": \"hello\", \"test\": true}"))
        test.publish(1)
        let first = try await onThread { (try client.receive(), try client.receive()) }
        guard case .text(let meta) = first.0, case .binary(let jpeg) = first.1 else { Issue.record("expected a frame"); return }
        #expect(meta.contains("\"frame\": 1,") && meta.hasSuffix("\"scene\": {\"index\": 1}}"))
        #expect(try JPEG.decode(jpeg).width == 64)
        // Frame 1 is not acknowledged yet: frames 2...9 wait as one slot, the newest.
        for index in 2...9 { test.publish(index) }
        try client.acknowledge(1)
        let next = try await onThread { (try client.receive(), try client.receive()) }
        guard case .text(let meta9) = next.0, case .binary(let jpeg9) = next.1 else { Issue.record("expected a frame"); return }
        #expect(meta9.contains("\"frame\": 9,"))
        #expect(try JPEG.decode(jpeg9).pixels[0] > 0)
        try client.acknowledge(9)
        #expect(await eventually { test.feed.snapshot().framesShown == 2 })
        // The end follows the last frame.
        test.feed.end("{\"type\": \"end\", \"summary\": null}")
        #expect(try await onThread { try client.receive() } == .text("{\"type\": \"end\", \"summary\": null}"))
    }

    @Test func aStalledViewerHoldsBackNeitherThePipelineNorAnotherViewer() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        // Connected and upgraded, then never reads nor answers: a frozen tab.
        let stalled = try ViewerClient(address: test.address, timeout: 60)
        // Acknowledges anything, as fast as it can, without reading: a broken page.
        let flooding = try ViewerClient(address: test.address, timeout: 60)
        let good = try ReadingViewer(test.address)
        for index in 0..<40 {
            test.publishNoise(index, width: 320, height: 240)
            // (Once the server has dropped it for not answering its pings, these fail: as they should.)
            for guess in index..<(index + 3) { try? flooding.acknowledge(guess) }
            await good.waitUntilShown(index)
        }
        #expect(good.frames.last == 39)
        #expect(good.frames == good.frames.sorted())
        _ = stalled
    }

    @Test func aViewerThatLeavesOrReloadsChangesNothingForTheOthers() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        let staying = try ReadingViewer(test.address)
        let leaving = try ReadingViewer(test.address)
        test.publish(0)
        await staying.waitUntilShown(0)
        await leaving.waitUntilShown(0)
        leaving.client.drop()
        await leaving.waitUntilClosed()
        for index in 1...20 {
            test.publish(index)
            await staying.waitUntilShown(index)
        }
        #expect(await eventually { test.feed.snapshot().viewers == 1 })
        // A reload: a new viewer gets the hello and the newest frame at once.
        let reloaded = try ReadingViewer(test.address)
        await reloaded.waitUntilShown(20)
        #expect(reloaded.frames == [20])
        #expect(await eventually { reloaded.client === reloaded.client && test.feed.snapshot().viewers == 2 })
        test.publish(21)
        await staying.waitUntilShown(21)
        await reloaded.waitUntilShown(21)
        #expect(staying.frames.last == 21 && reloaded.frames.last == 21)
    }

    @Test func garbageFromAViewerClosesOnlyItsConnection() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        let good = try ReadingViewer(test.address)
        let garbage: [(String, (ViewerClient) throws -> Void)] = [
            ("binary data", { try $0.sendFrame(opcode: 0x2, payload: [1, 2, 3]) }),
            ("other JSON", { try $0.send(text: "{\"type\": \"shown\", \"frame\": \"x\"}") }),
            ("not JSON", { try $0.send(text: "GET /etc/passwd") }),
            ("an oversized message", { try $0.send(text: String(repeating: "x", count: 100_000)) }),
            ("bytes that are no WebSocket frame", { try $0.sendRaw(Array("\u{0}\u{1}garbage\r\n\r\n".utf8) + [UInt8](repeating: 0xFF, count: 64)) }),
        ]
        for (index, (what, send)) in garbage.enumerated() {
            let client = try ViewerClient(address: test.address, timeout: 60)
            #expect(try await onThread { try client.receive() } != .closed(code: nil), "\(what): hello")
            try send(client)
            // Whatever frames were on the way, the connection ends.
            let ended = try await onThread { () -> Bool in
                while true {
                    if case .closed = try client.receive() { return true }
                }
            }
            #expect(ended, "\(what)")
            test.publish(index)
            await good.waitUntilShown(index)
        }
        #expect(good.frames.last == garbage.count - 1)
        #expect(await eventually { test.feed.snapshot().viewers == 1 })
    }

    @Test func aHundredConnectionsOpenedAndDroppedLeaveNothingBehind() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        let good = try ReadingViewer(test.address)
        for round in 0..<3 {
            try await onThread {
                for i in 0..<100 {
                    switch i % 4 {
                    case 0:   // connect, say nothing, go
                        close(try ViewerClient.connect(test.address, timeout: 10))
                    case 1:   // half a request
                        let s = try ViewerClient.connect(test.address, timeout: 10)
                        _ = "GET / HTTP/1.1\r\nHost: 12".withCString { send(s, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                        close(s)
                    case 2:   // a viewer that vanishes
                        try ViewerClient(address: test.address, timeout: 10).drop()
                    default:  // a viewer that goes mid-frame
                        let client = try ViewerClient(address: test.address, timeout: 10)
                        try client.sendRaw([0x81, 0xFE, 0x10])
                        client.drop()
                    }
                }
            }
            test.publish(round)
            await good.waitUntilShown(round)
            #expect(await eventually { test.feed.snapshot().viewers == 1 }, "round \(round): viewers left registered")
            // Nothing is held for the 100 gone: one viewer's channel, one socket (the good viewer's).
            #expect(await eventually { test.server.openViewerChannels == 1 }, "round \(round): viewer channels left open")
            #expect(await eventually { openServerSockets(port: test.address.port) == 1 },
                    "round \(round): \(openServerSockets(port: test.address.port)) server sockets open")
        }
        #expect(try get(test.address, "/")?.hasPrefix("HTTP/1.1 200") == true)
        #expect(test.feed.snapshot().viewersSeen == 1 + 3 * 50)
    }

    @Test func theServerAnswersWhileEverySharedPoolThreadIsHeld() async throws {
        // What a pipeline calling a forward pass from async code, or a suite of parallel tests, does
        // to Swift's cooperative pool: every other thread of it blocked. The server runs on its own
        // thread, so the page still comes and a viewer still gets its frame.
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        let held = EventCounter(), release = Gate()
        let others = max(ProcessInfo.processInfo.activeProcessorCount - 1, 1)   // this test holds one
        let holders = (0..<others).map { _ in Task { held.add(); _ = release.pass() } }
        defer {
            release.open()
            for holder in holders { holder.cancel() }
        }
        #expect(held.waitBlocking(forAtLeast: others))
        #expect(try get(test.address, "/")?.hasPrefix("HTTP/1.1 200") == true)
        let client = try ViewerClient(address: test.address, timeout: 60)
        #expect(try client.receive() == .text("{\"type\": \"hello\", \"test\": true}"))
        test.publish(7)
        guard case .text(let meta) = try client.receive(), case .binary(let jpeg) = try client.receive() else {
            Issue.record("no frame while the pool was held"); return
        }
        #expect(meta.hasSuffix("\"scene\": {\"index\": 7}}"))
        #expect(try JPEG.decode(jpeg).width == 64)
    }

    @Test func onlyThePageAndTheSocketAreServed() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        let page = try #require(try get(test.address, "/"))
        #expect(page.hasPrefix("HTTP/1.1 200"))
        #expect(page.lowercased().contains("content-type: text/html; charset=utf-8"))
        #expect(page.contains("<title>PoseKit live view</title>"))
        // Nothing in the page loads from elsewhere.
        #expect(!page.contains("http://") && !page.contains("https://") && !page.contains("src="))
        for path in ["/../../../../etc/passwd", "/etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/Package.swift", "/index.html", "/?file=/etc/passwd&x=1".replacingOccurrences(of: "/?", with: "/x?")] {
            let response = try #require(try get(test.address, path), "\(path)")
            #expect(response.hasPrefix("HTTP/1.1 404"), "\(path): \(response.prefix(40))")
            #expect(!response.contains("root:"), "\(path)")
        }
        let plain = try #require(try get(test.address, "/ws"))
        #expect(plain.hasPrefix("HTTP/1.1 400"))
    }

    @Test func anOversizedRequestGetsAnErrorOrAClosedConnection() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        for padding in [12_000, 200_000] {
            // Over the 8 KiB field limit: an error status or the connection closed, at once (the
            // exchange's 30 s timeout would throw).
            let huge = "X-Padding: " + String(repeating: "a", count: padding) + "\r\n"
            if let response = try get(test.address, "/", extraHeaders: huge) {
                #expect(!response.hasPrefix("HTTP/1.1 200"), "\(response.prefix(60))")
            }
        }
        let fields = (0..<150).map { "X-\($0): a\r\n" }.joined()
        if let response = try get(test.address, "/", extraHeaders: fields) {
            #expect(!response.hasPrefix("HTTP/1.1 200"), "\(response.prefix(60))")
        }
        var body = Array("POST / HTTP/1.1\r\nHost: \(test.address)\r\nContent-Length: 50000000\r\nConnection: close\r\n\r\n".utf8)
        body += [UInt8](repeating: 0x41, count: 1 << 20)
        if let response = try rawExchange(test.address, body) {
            #expect(!response.hasPrefix("HTTP/1.1 200"), "\(response.prefix(60))")
        }
        #expect(try get(test.address, "/")?.hasPrefix("HTTP/1.1 200") == true)
    }

    @Test func aClientThatSaysNothingOrStallsInItsRequestIsClosed() async throws {
        let feed = LiveFeed(hello: "{}")
        // A short silence limit, though not so short that a loaded host's server could not answer
        // the page's request below within it (the limit runs from the request's last byte).
        let server = ViewServer(feed: feed, address: ListenAddress(host: "127.0.0.1", port: 0), silenceLimit: 2)
        let address = try await server.start()
        defer { Task { await server.stop() } }
        for opening in ["", "GET / HTTP/1.1\r\nHost: 12", "GET /ws HTTP/1.1\r\n"] {
            // The server closes the connection (recv returns 0) instead of holding it for ever.
            let closed = try await onThread { () -> Bool in
                let socket = try ViewerClient.connect(address, timeout: 60)
                defer { close(socket) }
                _ = opening.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                var byte: UInt8 = 0
                return recv(socket, &byte, 1, 0) == 0
            }
            #expect(closed, "after \(opening.debugDescription)")
        }
        #expect(try get(address, "/")?.hasPrefix("HTTP/1.1 200") == true)
    }

    @Test func anotherSiteCannotOpenTheSocket() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        let port = test.address.port
        for (origin, host) in [("http://evil.example", nil), ("http://evil.example:\(port)", "evil.example:\(port)"),
                               (nil, "evil.example:\(port)"), ("null", nil)] as [(String?, String?)] {
            #expect(throws: ViewerClient.Failure.self, "origin \(origin ?? "none"), host \(host ?? "default")") {
                _ = try ViewerClient(address: test.address, origin: origin, host: host, timeout: 30)
            }
        }
        // The page's own origin, under either loopback name.
        _ = try ViewerClient(address: test.address, origin: "http://127.0.0.1:\(port)", timeout: 30)
        _ = try ViewerClient(address: test.address, origin: "http://localhost:\(port)", host: "localhost:\(port)", timeout: 30)
    }

    @Test func aPortInUseOrAnAddressNotOfThisMachineIsOneClearError() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        for (host, port, reason) in [("127.0.0.1", test.address.port, "the port is in use"),
                                     ("192.0.2.1", 0, "that address is not one of this machine's"),
                                     ("no-such-host.invalid", 0, "")] {
            let other = ViewServer(feed: LiveFeed(hello: "{}"), address: ListenAddress(host: host, port: port))
            do {
                _ = try await other.start()
                Issue.record("\(host):\(port) was bound")
                await other.stop()
            } catch let error as ViewServerError {
                #expect(error.description.hasPrefix("cannot listen on \(host):\(port): \(reason)"), "\(error)")
                #expect(!error.description.contains("\n"))
            }
        }
        // The first server is unaffected.
        #expect(try get(test.address, "/")?.hasPrefix("HTTP/1.1 200") == true)
    }

    @Test func stopEndsEveryViewerEvenAStalledOne() async throws {
        let test = try await TestServer.start()
        let stalled = try ViewerClient(address: test.address, timeout: 60)
        let reading = try ReadingViewer(test.address)
        test.publishNoise(0)
        await reading.waitUntilShown(0)
        await test.server.stop()
        await reading.waitUntilClosed()
        #expect(reading.isClosed)
        // The stalled viewer's connection is closed too: reading it ends.
        let ended = try await onThread { () -> Bool in
            while true { if case .closed = try stalled.receive() { return true } }
        }
        #expect(ended)
        #expect(throws: ViewerClient.Failure.self) { _ = try ViewerClient(address: test.address, timeout: 10) }
    }

    @Test func listenAddresses() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(try ListenAddress(parsing: "[::1]:0") == ListenAddress(host: "::1", port: 0))
        #expect(try ListenAddress(parsing: "localhost:65535").isLoopback)
        #expect(try !ListenAddress(parsing: "0.0.0.0:80").isLoopback)
        #expect(try ListenAddress(parsing: "0.0.0.0:8080").url == "http://127.0.0.1:8080/")
        #expect(ListenAddress(host: "::1", port: 9).description == "[::1]:9")
        for bad in ["8080", ":8080", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:80a", "::1:8080", "a b:80",
                    "127.0.0.1:99999999999999999999"] {
            #expect(throws: ListenAddressError.self, "\(bad)") { _ = try ListenAddress(parsing: bad) }
        }
    }

    @Test func jpegRoundTripKeepsThePicture() throws {
        // A gradient with a sharp square: decoded within a few levels of the original.
        var image = RGBImage(width: 96, height: 64)
        for y in 0..<64 {
            for x in 0..<96 {
                let inSquare = (30..<60).contains(x) && (20..<44).contains(y)
                image[x, y] = inSquare ? RGBColor(250, 20, 20) : RGBColor(UInt8(x * 2), UInt8(y * 3), 128)
            }
        }
        let decoded = try JPEG.decode(JPEG.encode(image, quality: 90))
        #expect(decoded.width == 96 && decoded.height == 64)
        var squaredError = 0.0
        for (a, b) in zip(image.pixels, decoded.pixels) { squaredError += pow(Double(a) - Double(b), 2) }
        let psnr = 10 * log10(255 * 255 / (squaredError / Double(image.pixels.count)))
        #expect(psnr > 30, "PSNR \(psnr) dB")
        #expect(throws: JPEG.Failure.self) { _ = try JPEG.decode([0xFF, 0xD8, 0xFF, 0x00, 1, 2, 3]) }
        #expect(throws: JPEG.Failure.self) { _ = try JPEG.decode(JPEG.encode(image), maximumPixels: 100) }
    }

    /// Peak signal-to-noise ratio of `decoded` against `original`, dB.
    static func psnr(_ original: RGBImage, _ decoded: RGBImage) -> Double {
        var squaredError = 0.0
        for (a, b) in zip(original.pixels, decoded.pixels) { squaredError += pow(Double(a) - Double(b), 2) }
        return 10 * log10(255 * 255 / max(squaredError / Double(original.pixels.count), 1e-9))
    }

    @Test func aVideoFrameIsEncodedFromItsPlanesAsWellAsThroughRGB() async throws {
        // Frames of a shared clip (limited-range BT.601 4:2:0 from ffmpeg) and the same pixels cut to
        // odd sizes: decoded, the planar path is as close to the frame's own RGB as the RGB path.
        let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let shared = ProcessInfo.processInfo.environment["POSEKIT_SHARED"].map { URL(fileURLWithPath: $0) }
            ?? repoRoot.deletingLastPathComponent().appendingPathComponent("shared")
        let clip = shared.appendingPathComponent("media/videos/409416541_Independent-Study__Push_Up.mp4").path
        var frames: [VideoFrame] = []
        for try await frame in MediaFrames(path: clip) {
            frames.append(frame)
            if frames.count == 3 { break }
        }
        try #require(frames.count == 3)
        for frame in frames {
            guard case .yuv(let yuv, let conversion) = frame.pixels else { Issue.record("not Y'CbCr"); continue }
            #expect(yuv.format.chroma.subsampling == .s420 && conversion.range == .limited)
            for (width, height, range) in [(yuv.width, yuv.height, ColorRange.limited), (yuv.width - 7, yuv.height - 5, .limited),
                                           (33, 17, .full), (1, 1, .limited), (2, 3, .full)] {
                // The top-left width x height of the frame, as its own 4:2:0 frame.
                var cut = YUVFrame(format: YUVFormat(width: width, height: height, chroma: yuv.format.chroma))
                for plane in 0..<3 {
                    let (from, to) = (yuv.format.planeSize(plane), cut.format.planeSize(plane))
                    for row in 0..<to.height {
                        let source = yuv.format.planeOffset(plane) + row * from.width
                        let target = cut.format.planeOffset(plane) + row * to.width
                        cut.data.replaceSubrange(target..<target + to.width, with: yuv.data[source..<source + to.width])
                    }
                }
                let video = VideoFrame(yuv: cut, conversion: YUVToRGB.Conversion(matrix: .bt601, range: range))
                let rgb = video.rgb()
                let planar = try JPEG.decode(JPEG.encode(video, quality: 90))
                let throughRGB = try JPEG.decode(JPEG.encode(rgb, quality: 90))
                #expect(planar.width == width && planar.height == height)
                let (planarPSNR, rgbPSNR) = (Self.psnr(rgb, planar), Self.psnr(rgb, throughRGB))
                // Same quality within a dB; a wrong range, matrix or padding costs far more.
                #expect(planarPSNR > rgbPSNR - 1 && planarPSNR > 28, "\(width)x\(height) \(range): planar \(planarPSNR) dB, through RGB \(rgbPSNR) dB")
            }
        }
        // A frame whose data is shorter than its planes is an error, not a read past its end.
        var short = YUVFrame(format: YUVFormat(width: 64, height: 64, chroma: .c420jpeg))
        short.data.removeLast(10)
        #expect(throws: JPEG.Failure.self) { _ = try JPEG.encode(VideoFrame(yuv: short, conversion: .bt601Limited)) }
    }

    @Test func theDelayIsMeasuredFromArrivalToTheViewersAcknowledgement() async throws {
        let test = try await TestServer.start()
        defer { Task { await test.server.stop() } }
        let client = try ViewerClient(address: test.address, timeout: 60)
        _ = try await onThread { try client.receive() }
        // Arrived 5 s ago: the delay is at least that, and the page's figure says so.
        test.publish(0, arrival: MonotonicClock.now() - 5)
        _ = try await onThread { (try client.receive(), try client.receive()) }
        try client.acknowledge(0)
        #expect(await eventually { test.feed.snapshot().framesShown == 1 })
        let delay = try #require(test.feed.snapshot().recentDelays.first)
        #expect(delay >= 5 && delay < 60)
        test.publish(1)
        let meta = try await onThread { try client.receive() }
        guard case .text(let text) = meta else { Issue.record("expected text"); return }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let median = try #require((object["delay_ms"] as? [String: Any])?["median"] as? Double)
        #expect(abs(median - delay * 1000) < 0.1)
        #expect(object["shown"] as? Int == 1 && object["viewers"] as? Int == 1)
    }
}
