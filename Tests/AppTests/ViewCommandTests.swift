import Foundation
import ViewServer
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `posekit view` end to end: its frames fed through stdin by the test (a paced source: a frame
/// is written only when the test says), a viewer connected over loopback, signals, bad sources
/// and addresses. (The page in a real browser: scripts/view-browser-test.py, `make test-view-browser`.)
final class ViewCommandTests: XCTestCase {
    /// The address `posekit view` printed on stderr.
    private func address(of view: LiveProcess, file: StaticString = #filePath, line: UInt = #line) throws -> ListenAddress {
        let start = LiveProcess.now()
        while LiveProcess.now() - start < 120 {
            if let match = view.stderr.range(of: #"posekit: view: http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                let port = Int(view.stderr[match].split(separator: ":").last!.dropLast())!
                return ListenAddress(host: "127.0.0.1", port: port)
            }
            guard view.process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.01)   // polling the child's stderr: a safety net, not an outcome
        }
        throw XCTSkip("posekit view printed no address: \(view.stderr)")
    }

    private func json(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    /// Frames come as the test writes them; a viewer sees the newest with its scene; the source's
    /// end leaves the page up with the summary; SIGINT then ends it with the JSON complete.
    func testAViewerSeesThePipesFramesAndTheEndThenSIGINTEndsIt() throws {
        let view = try LiveProcess(["view", "--listen", "127.0.0.1:0", "--threads", "1", "-"])
        defer { if view.process.isRunning { view.signal(SIGKILL) }; _ = view.finish() }
        let address = try address(of: view)
        let viewer = try ViewerClient(address: address, timeout: 120)
        guard case .text(let hello) = try viewer.receive() else { return XCTFail("no hello") }
        XCTAssertEqual(json(hello)["type"] as? String, "hello")
        XCTAssertEqual(json(hello)["source"] as? String, "-")
        view.send(SyntheticY4M.header)
        for index in 0..<3 {
            view.send(SyntheticY4M.frame(index))
            // The frame's line is out before the next frame is written: the test paces the source.
            XCTAssertTrue(view.waitForLines(index + 1))
            guard case .text(let meta) = try viewer.receive(), case .binary(let jpeg) = try viewer.receive() else { return XCTFail("no frame") }
            let message = json(meta)
            XCTAssertEqual(message["frame"] as? Int, index)
            let scene = try XCTUnwrap(message["scene"] as? [String: Any])
            // The scene's pose line is the frame's JSON line.
            XCTAssertEqual(NSDictionary(dictionary: try XCTUnwrap(scene["pose"] as? [String: Any])), NSDictionary(dictionary: json(view.lines[index].line)))
            XCTAssertNotNil(scene["summary"] as? [String: Any])
            let image = try JPEG.decode(jpeg)
            XCTAssertEqual([image.width, image.height], [SyntheticY4M.width, SyntheticY4M.height])
            try viewer.acknowledge(index)
        }
        view.closeInput()
        guard case .text(let end) = try viewer.receive() else { return XCTFail("no end message") }
        XCTAssertEqual(json(end)["type"] as? String, "end")
        XCTAssertNil(json(end)["error"])
        // The summary went out before the end message (the last window's prediction, if any, before it);
        // the page stays up until a signal.
        var count = 4
        while json(view.lines.last!.line)["type"] as? String != "summary" {
            XCTAssertTrue(view.waitForLines(count))
            count += 1
            if count > 10 { return XCTFail("no summary: \(view.lines.map(\.line))") }
        }
        XCTAssertEqual(json(view.lines.last!.line)["frames"] as? Int, 3)
        let written = view.lines.count
        XCTAssertTrue(view.process.isRunning)
        view.signal(SIGINT)
        XCTAssertEqual(view.finish(), 130)
        XCTAssertEqual(view.lines.count, written)
        XCTAssertTrue(view.stderr.contains("stopped by SIGINT"), view.stderr)
        // The viewer's connection ends with the server (a close frame, or the socket closed).
        guard case .closed = try viewer.receive() else { return XCTFail("the viewer's connection outlived posekit") }
    }

    /// A source cut mid-frame (a camera unplugged: its ffmpeg killed) is one error line, after
    /// every frame before it and the summary; the viewer is told.
    func testASourceThatFailsMidStreamIsOneLineAndTheSummaryIsWritten() throws {
        let view = try LiveProcess(["view", "--listen", "127.0.0.1:0", "--threads", "1", "-"])
        defer { if view.process.isRunning { view.signal(SIGKILL) }; _ = view.finish() }
        let address = try address(of: view)
        let viewer = try ViewerClient(address: address, timeout: 120)
        _ = try viewer.receive()
        view.send(SyntheticY4M.header)
        view.send(SyntheticY4M.frame(0))
        view.send(SyntheticY4M.frame(1))
        XCTAssertTrue(view.waitForLines(2))
        view.send(SyntheticY4M.frame(2).prefix(100))
        view.closeInput()
        XCTAssertEqual(view.finish(), 1)
        let errors = view.stderr.split(separator: "\n").filter { $0.hasPrefix("posekit: error:") }
        XCTAssertEqual(errors.count, 1, view.stderr)
        // Names the source (`-`, or "standard input").
        XCTAssertTrue(errors.first.map { $0.contains("-:") || $0.contains("standard input") } == true, view.stderr)
        XCTAssertEqual(view.lines.filter { json($0.line)["type"] == nil }.count, 2)
        XCTAssertEqual(json(view.lines.last!.line)["type"] as? String, "summary")
        // The viewer got the frames, then the end with the error, then the server went away.
        var end: [String: Any]?
        while end == nil {
            switch try viewer.receive() {
            case .text(let text) where json(text)["type"] as? String == "end": end = json(text)
            case .text(let text): if let frame = json(text)["frame"] as? Int { _ = frame }
            case .binary: continue
            case .closed: XCTFail("closed before the end message"); return
            }
        }
        XCTAssertNotNil(end?["error"] as? String)
    }

    /// A port in use, an address not of this machine, an address that is no address: one line each.
    func testAddressesThatCannotBeBoundAreOneLine() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var bound = sockaddr_in()
        bound.sin_family = sa_family_t(AF_INET)
        bound.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        XCTAssertEqual(listen(listener, 1), 0)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: bound.sin_port))
        for (listen, status, expected) in [("127.0.0.1:\(port)", Int32(1), "posekit: error: cannot listen on 127.0.0.1:\(port): the port is in use"),
                                           ("192.0.2.1:0", 1, "posekit: error: cannot listen on 192.0.2.1:0: that address is not one of this machine's"),
                                           ("localhost", 2, "--listen 'localhost' is not ADDRESS:PORT"),
                                           ("127.0.0.1:70000", 2, "the port must be a number in 0...65535")] {
            let result = try CLI.run(["view", "--listen", listen, "-"], stdin: SyntheticY4M.stream(frames: 1))
            XCTAssertEqual(result.status, status, "\(listen): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(expected), "\(listen): \(result.stderr)")
            XCTAssertTrue(result.stdout.isEmpty, listen)
        }
    }
}
