import Foundation

/// What the container of a media file says about it before any frame is decoded: its length, its
/// frame rates and whether it has audio, from `ffprobe` (installed with ffmpeg). Used for
/// progress with a total, the variable-frame-rate warning and copying the audio into an overlay.
///
/// Every field is optional: a file ffprobe cannot read, a stream without the field, or no ffprobe
/// at all gives nil, and the caller carries on without (a probe never fails a run).
public struct MediaProbe: Sendable, Equatable {
    /// Frames the container declares (`nb_frames`), nil when it does not say.
    public var declaredFrames: Int?
    /// Seconds (the container's duration, else the video stream's).
    public var duration: Double?
    /// The nominal frame rate (`r_frame_rate`): the rate ffmpeg's Y4M output has.
    public var nominalFrameRate: Double?
    /// The average frame rate (`avg_frame_rate`: frames over duration).
    public var averageFrameRate: Double?
    /// Whether the file has an audio stream.
    public var hasAudio = false

    public init(declaredFrames: Int? = nil, duration: Double? = nil, nominalFrameRate: Double? = nil,
                averageFrameRate: Double? = nil, hasAudio: Bool = false) {
        self.declaredFrames = declaredFrames; self.duration = duration
        self.nominalFrameRate = nominalFrameRate; self.averageFrameRate = averageFrameRate; self.hasAudio = hasAudio
    }

    /// Whether frames come at a variable rate: the average differs from the nominal rate by more
    /// than 0.5 % (a constant-rate file's two rates agree to rounding).
    public var hasVariableFrameRate: Bool {
        guard let nominal = nominalFrameRate, let average = averageFrameRate, nominal > 0, average > 0 else { return false }
        return abs(nominal - average) > 0.005 * nominal
    }

    /// Frames the decoded stream will have: ffmpeg's Y4M output runs at the nominal rate (a
    /// variable-rate file's frames are repeated or dropped to it), so duration × nominal rate;
    /// for a constant rate, the declared count when there is one. Nil when unknown.
    public var expectedFrames: Int? {
        if !hasVariableFrameRate, let declaredFrames, declaredFrames > 0 { return declaredFrames }
        guard let duration, let rate = nominalFrameRate, duration > 0, rate > 0, duration * rate < 1e9 else { return declaredFrames }
        return max(1, Int((duration * rate).rounded()))
    }

    /// The one-line warning for a variable-frame-rate file (nil for a constant rate): what was found
    /// and what is done about it.
    public func variableFrameRateWarning(for path: String) -> String? {
        guard hasVariableFrameRate, let nominal = nominalFrameRate, let average = averageFrameRate else { return nil }
        return "\(path): variable frame rate (\(Self.rate(average)) frames/s on average, nominal \(Self.rate(nominal))); "
            + "ffmpeg repeats or drops frames to a constant \(Self.rate(nominal)) frames/s, so frame times stay right "
            + "but some frames appear twice (or are skipped) in the output"
    }

    /// `29.97`, `30`.
    static func rate(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return hundredths % 100 == 0 ? "\(hundredths / 100)" : String(format: "%.2f", value)
    }

    /// Probes the file at `path` with `ffprobe` (the one beside ffmpeg on `PATH`); nil without
    /// ffprobe, for a file it cannot read, or after `timeout` seconds.
    public static func probe(_ path: String, timeout: Double = 10) -> MediaProbe? {
        guard let ffmpeg = FFmpeg.executable() else { return nil }
        let ffprobe = URL(fileURLWithPath: ffmpeg).deletingLastPathComponent().appendingPathComponent("ffprobe").path
        guard FileManager.default.isExecutableFile(atPath: ffprobe) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffprobe)
        process.arguments = ["-v", "error", "-show_entries",
                             "stream=codec_type,nb_frames,r_frame_rate,avg_frame_rate,duration:format=duration",
                             "-of", "default=noprint_wrappers=0", "file:" + FFmpeg.absolutePath(path)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        let reader = output.fileHandleForReading
        var data = Data()
        // ffprobe's answer is a few hundred bytes; read until it closes its output.
        while let chunk = try? reader.read(upToCount: 4096), !chunk.isEmpty, data.count < 1 << 20 {
            data.append(chunk)
            if Date() > deadline { break }
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// Reads ffprobe's `default` output (`[STREAM] ... [/STREAM]`, `[FORMAT] ... [/FORMAT]`
    /// sections of `key=value` lines); the first video stream gives the rates and counts.
    static func parse(_ text: String) -> MediaProbe {
        var probe = MediaProbe()
        var section: [String: String] = [:]
        var sawVideo = false
        var streamDuration: Double?
        for line in text.split(whereSeparator: \.isNewline) {
            switch line {
            case "[STREAM]", "[FORMAT]": section = [:]
            case "[/STREAM]":
                if section["codec_type"] == "audio" { probe.hasAudio = true }
                if section["codec_type"] == "video" && !sawVideo {
                    sawVideo = true
                    probe.declaredFrames = section["nb_frames"].flatMap { Int($0) }.flatMap { (1...100_000_000).contains($0) ? $0 : nil }
                    probe.nominalFrameRate = section["r_frame_rate"].flatMap(ratio)
                    probe.averageFrameRate = section["avg_frame_rate"].flatMap(ratio)
                    streamDuration = section["duration"].flatMap(seconds)
                }
            case "[/FORMAT]": probe.duration = section["duration"].flatMap(seconds)
            default:
                guard let equals = line.firstIndex(of: "=") else { continue }
                section[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
        }
        if probe.duration == nil { probe.duration = streamDuration }
        return probe
    }

    /// `30000/1001` → 29.97; nil for `0/0`, `N/A` or a rate outside (0, 10000].
    static func ratio(_ text: String) -> Double? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d > 0 else { return nil }
        let value = n / d
        return value > 0 && value <= 10_000 ? value : nil
    }

    /// A finite, positive number of seconds under a year.
    static func seconds(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite, value > 0, value < 3.2e7 else { return nil }
        return value
    }
}
