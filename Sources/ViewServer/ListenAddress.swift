/// Where the live view's server listens: `ADDRESS:PORT` as `--listen` takes it. An IPv4 address
/// or a host name (`127.0.0.1:8080`, `localhost:8080`, `0.0.0.0:8080`), an IPv6 address in
/// brackets (`[::1]:8080`); port 0 asks the system for a free port (the one bound is printed).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address or host name, without brackets.
    public var host: String
    /// 0...65535; 0: any free port.
    public var port: Int

    /// Loopback only, on port 8080: what `posekit view` listens on unless told otherwise.
    public static let `default` = ListenAddress(host: "127.0.0.1", port: 8080)

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `ADDRESS:PORT`; nil with the reason in `problem` when it is not one.
    public init(parsing text: String) throws(ListenAddressError) {
        guard let colon = text.lastIndex(of: ":") else {
            throw ListenAddressError("'\(text)' is not ADDRESS:PORT (e.g. 127.0.0.1:8080, 0.0.0.0:8080, [::1]:8080)")
        }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            throw ListenAddressError("'\(text)': an IPv6 address goes in brackets, e.g. [::1]:8080")
        }
        guard !host.isEmpty else { throw ListenAddressError("'\(text)' has no address before the port (e.g. 127.0.0.1:\(portText))") }
        guard host.utf8.count <= 253, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:%_".contains($0)) }) else {
            throw ListenAddressError("'\(host)' is not an IP address or host name")
        }
        guard portText.count <= 5, let port = Int(portText), (0...65535).contains(port) else {
            throw ListenAddressError("'\(text)': the port must be a number in 0...65535 (0: any free port)")
        }
        self.host = host
        self.port = port
    }

    /// Whether only this machine can connect: 127.0.0.0/8, ::1 or `localhost`.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `127.0.0.1:8080`, `[::1]:8080`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The page's address: `http://127.0.0.1:8080/` (a wildcard address names this machine's loopback).
    public var url: String {
        let shown = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
        return "http://\(ListenAddress(host: shown, port: port))/"
    }
}

/// A `--listen` value that is not `ADDRESS:PORT`.
public struct ListenAddressError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
