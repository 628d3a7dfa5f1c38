import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A viewer without a browser: the live view's WebSocket protocol (RFC 6455, client side) over a
/// blocking socket, for the benchmark's viewers and the tests. It does what the page does
/// (`receive()` the hello, each frame's message and JPEG; ``acknowledge(_:)`` a frame shown),
/// and can misbehave on purpose (``sendRaw(_:)``).
/// One thread at a time uses it (it is unchecked Sendable so a test can hand it to that thread).
public final class ViewerClient: @unchecked Sendable {
    /// A message from the server.
    public enum Message: Equatable, Sendable {
        case text(String)
        case binary([UInt8])
        /// The server closed the WebSocket (its close code, if it gave one), or the connection ended.
        case closed(code: Int?)
    }

    /// Why a viewer could not connect or talk.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let socket: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var closed = false

    /// Connects to the server at `address` and upgrades to its WebSocket at `path`; `origin`
    /// and `host` are sent as a browser would (nil: no Origin header; the address as Host).
    /// Every read waits at most `timeout` seconds (a test's safety net).
    public init(address: ListenAddress, path: String = "/ws", origin: String? = nil, host: String? = nil, timeout: Double = 60) throws {
        socket = try Self.connect(address, timeout: timeout)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host ?? address.description)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        request += "\r\n"
        do {
            try send(Array(request.utf8))
            let head = try readHead()
            guard head.hasPrefix("HTTP/1.1 101") else {
                throw Failure(description: "no WebSocket: \(head.split(separator: "\r\n").first ?? "")")
            }
        } catch {
            Glibc.close(socket)
            throw error
        }
    }

    deinit { Glibc.close(socket) }

    /// The next message (pings are answered here, not returned).
    public func receive() throws -> Message {
        var message: [UInt8] = []
        var opcode: UInt8 = 0
        while true {
            guard !closed else { return .closed(code: nil) }
            guard let header = try read(2) else { closed = true; return .closed(code: nil) }
            let fin = header[0] & 0x80 != 0, frameOpcode = header[0] & 0x0F
            var length = Int(header[1] & 0x7F)
            if length == 126 {
                guard let extended = try read(2) else { return .closed(code: nil) }
                length = Int(extended[0]) << 8 | Int(extended[1])
            } else if length == 127 {
                guard let extended = try read(8) else { return .closed(code: nil) }
                length = extended.reduce(0) { $0 << 8 | Int($1) }
                guard length <= 1 << 28 else { throw Failure(description: "a frame of \(length) bytes") }
            }
            guard let payload = try read(length) else { return .closed(code: nil) }
            switch frameOpcode {
            case 0x8:
                closed = true
                try? sendFrame(opcode: 0x8, payload: Array(payload.prefix(2)))
                return .closed(code: payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil)
            case 0x9:
                try sendFrame(opcode: 0xA, payload: payload)
            case 0xA:
                continue
            default:
                if frameOpcode != 0 { opcode = frameOpcode }
                message += payload
                guard fin else { continue }
                return opcode == 0x1 ? .text(String(decoding: message, as: UTF8.self)) : .binary(message)
            }
        }
    }

    /// Tells the server the page has shown frame `index`.
    public func acknowledge(_ index: Int) throws {
        try send(text: "{\"type\": \"shown\", \"frame\": \(index)}")
    }

    /// A text message.
    public func send(text: String) throws { try sendFrame(opcode: 0x1, payload: Array(text.utf8)) }

    /// A frame of `opcode` carrying `payload`, masked as a client's must be.
    public func sendFrame(opcode: UInt8, payload: [UInt8]) throws {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
        try send(frame)
    }

    /// Bytes as they are, WebSocket framing or not.
    public func sendRaw(_ bytes: [UInt8]) throws { try send(bytes) }

    /// Closes the connection at once (no close handshake: a tab killed, a cable pulled).
    public func drop() { shutdown(socket, Int32(SHUT_RDWR)) }

    // MARK: The socket

    static func connect(_ address: ListenAddress, timeout: Double) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &found) == 0, let first = found else {
            throw Failure(description: "\(address.host): no such host")
        }
        defer { freeaddrinfo(found) }
        let descriptor = Glibc.socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard Glibc.connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw Failure(description: "connect to \(address): \(reason)")
        }
        return descriptor
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Exactly `count` bytes, or nil when the connection ended first.
    private func read(_ count: Int) throws -> [UInt8]? {
        while buffer.count - start < count {
            if start > 0 && start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
            var chunk = [UInt8](repeating: 0, count: max(65536, count))
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if n == 0 { return nil }
            guard n > 0 else {
                if errno == ECONNRESET { return nil }
                throw Failure(description: errno == EAGAIN || errno == EWOULDBLOCK ? "no answer in time" : "recv: \(String(cString: strerror(errno)))")
            }
            buffer += chunk[..<n]
        }
        let bytes = Array(buffer[start..<start + count])
        start += count
        return bytes
    }

    /// The HTTP response head, up to its blank line.
    private func readHead() throws -> String {
        var head: [UInt8] = []
        while !(head.count >= 4 && head.suffix(4) == [13, 10, 13, 10]) {
            guard let byte = try read(1) else { throw Failure(description: "the server closed the connection: \(String(decoding: head, as: UTF8.self))") }
            head += byte
            guard head.count < 16384 else { throw Failure(description: "an HTTP head over 16 KiB") }
        }
        return String(decoding: head, as: UTF8.self)
    }
}
