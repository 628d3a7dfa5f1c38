import Foundation
import Testing

/// In-order video runs one frame per thread at once (`FrameWorkers`): the output must be exactly
/// what one frame at a time gives (`--threads 1`), whatever the number of frames in flight, also
/// when the stream breaks off mid-frame.
@Suite(.serialized) struct FramesInFlightTests {
    static let clip = CLI.shared.appendingPathComponent("media/videos/409416541_Independent-Study__Jumping_Jacks.mp4")

    /// 40 frames of a real clip, small so that the frames finish at uneven times.
    static func stream() throws -> Data {
        try CLI.ffmpeg(["-i", clip.path, "-frames:v", "40", "-vf", "scale=192:-2", "-f", "yuv4mpegpipe", "-"])
    }

    @Test(arguments: [2, 3, 5])
    func framesInFlightWriteWhatOneFrameAtATimeWrites(_ threads: Int) throws {
        let y4m = try Self.stream()
        let serial = try CLI.run(["pose", "--input-size", "129", "--threads", "1", "-"], stdin: y4m)
        let inFlight = try CLI.run(["pose", "--input-size", "129", "--threads", "\(threads)", "-"], stdin: y4m)
        #expect(serial.status == 0 && inFlight.status == 0, "stderr: \(serial.stderr) \(inFlight.stderr)")
        #expect(serial.lines.count == 40)
        let frames = inFlight.lines.map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["frame"] as? Int
        }
        #expect(frames == (0..<40).map { $0 }, "frames in order")
        #expect(inFlight.stdout == serial.stdout, "--threads \(threads): the same bytes as one frame at a time")
    }

    /// A stream cut inside frame 25: frames 0...24 come out, in order, then one error line, as
    /// with one frame at a time.
    @Test(arguments: [2, 3])
    func aTruncatedStreamKeepsEveryFrameBeforeTheCut(_ threads: Int) throws {
        let y4m = try Self.stream()
        let frameStarts = Self.frameMarkers(in: y4m)
        #expect(frameStarts.count == 40)
        let cut = y4m.prefix(frameStarts[25] + 100)
        let serial = try CLI.run(["pose", "--input-size", "129", "--threads", "1", "-"], stdin: cut)
        let inFlight = try CLI.run(["pose", "--input-size", "129", "--threads", "\(threads)", "-"], stdin: cut)
        #expect(serial.status == 1 && inFlight.status == 1)
        #expect(serial.lines.count == 25 && inFlight.stdout == serial.stdout)
        #expect(inFlight.stderr.split(separator: "\n").count == 1 && inFlight.stderr == serial.stderr, "\(inFlight.stderr)")
    }

    /// Byte offsets of each `FRAME` marker.
    static func frameMarkers(in y4m: Data) -> [Int] {
        let marker = Array("FRAME".utf8)
        let bytes = [UInt8](y4m)
        var starts: [Int] = []
        var i = bytes.firstIndex(of: 0x0A)! + 1
        let frameBytes = { () -> Int in
            // The header's W and H give the 4:2:0 frame size.
            let header = String(decoding: bytes[..<(i - 1)], as: UTF8.self).split(separator: " ")
            let w = Int(header.first { $0.hasPrefix("W") }!.dropFirst())!, h = Int(header.first { $0.hasPrefix("H") }!.dropFirst())!
            return w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2)
        }()
        while i + marker.count <= bytes.count, Array(bytes[i..<(i + marker.count)]) == marker {
            starts.append(i)
            i = bytes[i...].firstIndex(of: 0x0A)! + 1 + frameBytes
        }
        return starts
    }
}
