import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything that can go wrong while reading or writing frames.
///
/// Every case prints as one line (`description`) so a command-line tool can show it as is and
/// exit non-zero. Reading errors that happen inside a stream carry `frameIndex`, the zero-based
/// index of the frame (or image) being read when the problem was found; every frame before it was
/// complete and has already been delivered.
public indirect enum FrameIOError: LocalizedError, Equatable, Sendable, CustomStringConvertible {
    /// The stream does not start with the expected signature (`P1`…`P6`, `YUV4MPEG2 `).
    case wrongMagic(format: String, found: String)
    /// The input is no image or video PoseKit reads (neither PNM nor Y4M, nor a format it hands to
    /// ffmpeg); `start` holds its first bytes (at most 16), which the message describes.
    case unknownFormat(start: [UInt8])
    /// The stream ended inside a header.
    case truncatedHeader(format: String, frameIndex: Int)
    /// The stream ended inside the pixel data of a frame (for plain, ASCII PNM the counts are samples).
    case truncatedFrame(format: String, frameIndex: Int, bytesRead: Int, bytesExpected: Int)
    /// A header field is missing, not a number, negative, zero or otherwise malformed.
    case invalidHeader(format: String, frameIndex: Int, reason: String)
    /// The frame would be larger than the reader's `FrameLimits`; nothing was allocated.
    case sizeExceedsLimit(width: Int, height: Int, maxWidth: Int, maxHeight: Int)
    /// A Y4M `C` tag this reader does not know.
    case unknownChroma(String)
    /// A Y4M frame does not start with `FRAME` (garbage between frames, or a wrong frame size).
    case missingFrameMarker(frameIndex: Int, found: String)
    /// The reader on the other end of an output pipe has gone away (EPIPE).
    /// Command-line tools should stop writing and exit quietly.
    case brokenPipe
    /// A system call failed.
    case system(operation: String, errno: Int32)
    /// Writing an output failed (disk full, file too large, I/O error); `name` is the path as
    /// given, or "standard output". Unlike input errors this ends the whole run.
    case writeFailed(name: String, errno: Int32)
    /// A signal (SIGINT, SIGTERM, SIGHUP) asked the program to stop; reading stopped at once.
    case interrupted(signal: Int32)
    /// An argument given by the caller is out of range.
    case invalidArgument(String)
    /// Media PoseKit does not read or write itself needs `ffmpeg`, which is not on `PATH`;
    /// `format` names it ("a JPEG image", "an MP4 video").
    case ffmpegMissing(format: String, encoding: Bool)
    /// `ffmpeg` failed; the message is its most informative error line.
    case ffmpegFailed(String)
    /// A problem with the file at `path` (as the caller named it).
    case file(path: String, FrameIOError)

    public var description: String {
        switch self {
        case let .wrongMagic(format, found):
            return "\(format): wrong signature \(found.isEmpty ? "(empty input)" : "'\(found)'")"
        case let .unknownFormat(start):
            return "not an image or video PoseKit reads (\(Self.describeStart(start))); it reads \(MediaFormat.acceptedFormats)"
        case let .truncatedHeader(format, index):
            return "\(format): input ends inside the header of frame \(index)"
        case let .truncatedFrame(format, index, read, expected):
            return "\(format): input ends inside frame \(index) (\(read) of \(expected) bytes)"
        case let .invalidHeader(format, index, reason):
            return "\(format): invalid header in frame \(index): \(reason)"
        case let .sizeExceedsLimit(w, h, maxW, maxH):
            return "frame size \(w)x\(h) exceeds the limit \(maxW)x\(maxH)"
        case let .unknownChroma(tag):
            return "y4m: unknown color space tag 'C\(tag)'"
        case let .missingFrameMarker(index, found):
            return "y4m: expected 'FRAME' before frame \(index), found '\(found)'"
        case .brokenPipe:
            return "output closed by the reader (broken pipe)"
        case let .system(operation, code):
            return "\(operation): \(String(cString: strerror(code)))"
        case let .writeFailed(name, code):
            return "cannot write \(name): \(String(cString: strerror(code)))"
        case let .interrupted(signal):
            return "interrupted by signal \(signal)"
        case let .invalidArgument(reason):
            return reason
        case let .ffmpegMissing(format, encoding):
            return encoding
                ? "\(format) needs ffmpeg to encode it, and ffmpeg is not on PATH; install it with apt-get install ffmpeg (or write .y4m or .ppm)"
                : "\(format) needs ffmpeg to decode it, and ffmpeg is not on PATH; install it with apt-get install ffmpeg (or convert the input to PPM or Y4M)"
        case let .ffmpegFailed(message):
            return "ffmpeg: \(message)"
        case let .file(path, problem):
            return "\(path): \(problem)"
        }
    }

    /// ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }

    /// Whether this error ends a whole run rather than one input: an output that cannot be
    /// written, a reader of the output that has gone, a stop signal.
    public var endsTheRun: Bool {
        switch self {
        case .brokenPipe, .interrupted, .writeFailed: return true
        case .file(_, let problem): return problem.endsTheRun
        default: return false
        }
    }

    /// `error` said of the file at `path`: a ``FrameIOError`` becomes ``file(path:_:)``, which
    /// names the file first (`clip.y4m: y4m: input ends inside frame 7 ...`; a failed `open path`
    /// becomes `path: open: No such file or directory`); errors that end the run, errors already
    /// about a file and other errors pass unchanged.
    public static func naming(_ path: String, _ error: Error) -> Error {
        guard let problem = error as? FrameIOError, !problem.endsTheRun else { return error }
        switch problem {
        case .file:
            return problem
        case let .system(operation, code) where operation == "open \(path)":
            return FrameIOError.file(path: path, .system(operation: "open", errno: code))
        default:
            return FrameIOError.file(path: path, problem)
        }
    }

    /// What the first bytes of an input look like, for a message with no escapes in it: `it is
    /// empty`, `it starts with the text "hello"` (whitespace runs as one space), or `it starts with
    /// the bytes 7f 45 4c 46 ...` (hex).
    static func describeStart(_ bytes: [UInt8]) -> String {
        let head = Array(bytes.prefix(16))
        if head.isEmpty { return "it is empty" }
        let isText = head.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if isText {
            let words = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if !words.isEmpty { return "it starts with the text \"\(words)\(bytes.count > head.count ? "..." : "")\"" }
        }
        let hex = head.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        return "it starts with the bytes \(hex.joined(separator: " "))\(bytes.count > head.count ? " ..." : "")"
    }

    /// A printable, bounded excerpt of raw bytes for error messages.
    static func excerpt<C: Collection>(_ bytes: C, limit: Int = 16) -> String where C.Element == UInt8 {
        var s = ""
        for b in bytes.prefix(limit) {
            s += (b >= 0x20 && b < 0x7F) ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16)
        }
        return bytes.count > limit ? s + "…" : s
    }
}

/// Upper bounds that a reader checks *before* allocating a frame, so a hostile header cannot
/// make it allocate gigabytes.
public struct FrameLimits: Sendable, Equatable {
    public var maxWidth: Int
    public var maxHeight: Int
    /// Longest header line accepted (Y4M stream and frame headers, PNM comment runs are skipped
    /// in constant memory and do not count).
    public var maxHeaderBytes: Int

    public init(maxWidth: Int = 16384, maxHeight: Int = 16384, maxHeaderBytes: Int = 65536) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxHeaderBytes = maxHeaderBytes
    }

    public static let `default` = FrameLimits()

    func check(width: Int, height: Int) throws {
        if width > maxWidth || height > maxHeight {
            throw FrameIOError.sizeExceedsLimit(width: width, height: height, maxWidth: maxWidth, maxHeight: maxHeight)
        }
    }
}
