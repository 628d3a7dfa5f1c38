import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Output that streams: lines reach a pipe as their frames finish, stop signals keep every
/// finished frame and exit 128 + N, and a closed output stops the input at once.
@Suite(.serialized) struct StreamingAndSignalTests {
    static let fast = ["--input-size", "257", "--threads", "1"]

    /// Each frame's line is written as soon as the frame is done, not when a later frame comes:
    /// the test sends one frame at a time and waits for its line before sending the next, so a
    /// line held back until more input arrives would never come (the hang guard fails it). No
    /// latency is measured: that depends on the machine's load, the order of events does not.
    @Test func eachLineArrivesBeforeTheNextFrameIsSent() throws {
        let child = try LiveProcess(["pose"] + Self.fast + ["-"])
        child.send(SyntheticY4M.header)
        for i in 0..<5 {
            child.send(SyntheticY4M.frame(i))
            #expect(child.waitForLines(i + 1), "frame \(i)'s line did not come before frame \(i + 1) was sent; stderr: \(child.stderr)")
        }
        child.closeInput()
        #expect(child.finish() == 0, "stderr: \(child.stderr)")
        #expect(child.lines.count == 5)
    }

    /// SIGINT, SIGTERM, SIGHUP while posekit waits for the next frame of a live stream.
    @Test(arguments: zip([SIGINT, SIGTERM, SIGHUP], [Int32(130), 143, 129]))
    func stopSignalKeepsEveryFinishedFrame(signal: Int32, status: Int32) throws {
        let child = try LiveProcess(["pose"] + Self.fast + ["-"])
        child.send(SyntheticY4M.stream(frames: 3))
        #expect(child.waitForLines(3), "stderr: \(child.stderr)")
        child.signal(signal)
        #expect(child.finish() == status, "a blocked read must end at the signal; stderr: \(child.stderr)")
        #expect(child.lines.count == 3)
        let errorLines = child.stderr.split(separator: "\n")
        #expect(errorLines.count == 1 && errorLines[0].contains("stopped by"), "stderr: \(child.stderr)")
    }

    /// A signal that arrives where no read waits (a regular file read to its end, the input
    /// ending at that moment, a run failing) still decides the exit status: before, a SIGTERM
    /// during `actions --poses FILE` was recorded and then ignored, and the run exited 0 with no
    /// stop message.
    @Test func aRecordedSignalAlwaysDecidesTheExitStatus() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let poses = dir.appendingPathComponent("long.jsonl")
        var text = ""
        for frame in 0..<400_000 { text += "{\"frame\": \(frame), \"time\": \(Double(frame) / 30), \"poses\": []}\n" }
        try Data(text.utf8).write(to: poses)
        let child = try LiveProcess(["actions", "--poses", poses.path])
        #expect(child.waitUntilOpen(poses.path), "posekit exited before reading the poses; stderr: \(child.stderr)")
        child.signal(SIGTERM)   // while it reads the file: 400 000 frames take seconds, the signal microseconds
        #expect(child.finish() == 143, "stderr: \(child.stderr)")
        #expect(child.stderr.contains("stopped by SIGTERM"), "stderr: \(child.stderr)")
    }

    /// SIGINT in the middle of a file being processed: every line written is whole, frames are
    /// consecutive from 0, and nothing finished is missing from a JSON file committed at exit.
    @Test func interruptMidStreamIntoAFile() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("clip.y4m")
        try SyntheticY4M.stream(frames: 400).write(to: clip)
        let json = dir.appendingPathComponent("poses.jsonl")
        let child = try LiveProcess(["pose"] + Self.fast + ["--progress", "--json", json.path, clip.path])
        // Lines go to a temporary file beside poses.jsonl (at most 100 ms late) until the commit:
        // wait for five of them there (an event; only the hang guard bounds it).
        var seen = 0
        _ = LiveProcess.poll {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names where name.hasSuffix(".tmp") {
                let text = (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? ""
                seen = text.filter { $0 == "\n" }.count
            }
            return seen >= 5 || !child.process.isRunning
        }
        #expect(seen >= 5, "lines must reach the file while frames are processed")
        child.signal(SIGINT)
        #expect(child.finish() == 130, "stderr: \(child.stderr)")
        let lines = try String(contentsOf: json, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= seen && lines.count < 400)
        for (index, line) in lines.enumerated() {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["frame"] as? Int == index)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    /// `posekit actions - | head -1` with an input that never ends: posekit must notice the
    /// reader has gone at the next frame and exit 141 instead of reading on. (Like any Unix
    /// filter it notices when it next writes a record: frames are sent after the reader has
    /// gone, since posekit may have finished every frame sent before.)
    @Test func closedOutputStopsTheInputAtOnce() throws {
        let child = try LiveProcess(["actions"] + Self.fast + ["-"], closeOutputAfter: 1)
        child.send(SyntheticY4M.stream(frames: 70))  // the first window ends at frame 59
        #expect(child.waitForLines(1), "stderr: \(child.stderr)")
        #expect(child.waitUntilOutputClosed())
        for index in 70..<80 { child.send(SyntheticY4M.frame(index)) }   // 46 KB: fits in the pipe, never blocks
        // The input stays open: a posekit that kept reading would wait for more for ever (the
        // hang guard kills it, and the status is not 141).
        #expect(child.finish() == 141, "posekit kept reading after its output closed")
        #expect(child.stderr.isEmpty, "stderr: \(child.stderr)")
    }
}
