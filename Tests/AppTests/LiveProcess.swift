import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A running `posekit` whose stdin the test feeds piece by piece and whose stdout lines are
/// recorded with their arrival time, for streaming, signal and closed-pipe tests. Every wait is
/// for an event (lines, the output closed, the exit), bounded only by the ``HangGuard``.
final class LiveProcess: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let condition = NSCondition()
    private var received: [(line: String, time: Double)] = []
    private var errorData = Data()
    private var outputClosed = false
    private var readersDone = 0

    /// Starts `posekit arguments`; after `closeOutputAfter` lines the test closes its end of
    /// stdout, as `| head -n N` does.
    init(_ arguments: [String], closeOutputAfter: Int? = nil, stdinFile: URL? = nil) throws {
        process.executableURL = CLI.executable
        process.arguments = arguments
        process.currentDirectoryURL = CLI.repositoryRoot
        process.standardInput = try stdinFile.map { try FileHandle(forReadingFrom: $0) } ?? input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outFD = output.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            reading: while true {
                let n = read(outFD, &chunk, chunk.count)
                if n <= 0 { break }
                let now = Self.now()
                for byte in chunk[0..<n] {
                    if byte != 0x0A { pending.append(byte); continue }
                    condition.lock()
                    received.append((String(decoding: pending, as: UTF8.self), now))
                    let count = received.count
                    condition.broadcast()
                    condition.unlock()
                    pending.removeAll()
                    if let closeOutputAfter, count >= closeOutputAfter { break reading }
                }
            }
            close(outFD)
            condition.lock(); outputClosed = true; readersDone += 1; condition.broadcast(); condition.unlock()
        }
        let errFD = errors.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(errFD, &chunk, chunk.count)
                if n <= 0 { break }
                condition.lock(); errorData.append(contentsOf: chunk[0..<n]); condition.unlock()
            }
            condition.lock(); readersDone += 1; condition.broadcast(); condition.unlock()
        }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Writes to the child's stdin (ignoring a child that has gone).
    func send(_ data: Data) {
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(input.fileHandleForWriting.fileDescriptor, raw.baseAddress! + done, raw.count - done)
                if n <= 0 { return }
                done += n
            }
        }
    }

    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Waits until `count` lines arrived (or stdout closed); false when they did not.
    @discardableResult
    func waitForLines(_ count: Int) -> Bool {
        let deadline = HangGuard.deadline
        condition.lock(); defer { condition.unlock() }
        while received.count < count && !outputClosed {
            if !condition.wait(until: deadline) { break }
        }
        return received.count >= count
    }

    /// Waits until the test has closed its end of stdout (`closeOutputAfter`); false only after the hang guard.
    @discardableResult
    func waitUntilOutputClosed() -> Bool {
        let deadline = HangGuard.deadline
        condition.lock(); defer { condition.unlock() }
        while !outputClosed {
            if !condition.wait(until: deadline) { break }
        }
        return outputClosed
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits until the child has `path` open (an event its `/proc` entry shows: its stop
    /// handlers are installed by then, and it is reading or waiting on that file); false when
    /// it exited first, or only after the hang guard.
    @discardableResult
    func waitUntilOpen(_ path: String) -> Bool {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return Self.poll { [process] in
            guard process.isRunning else { return true }
            let fdDirectory = "/proc/\(process.processIdentifier)/fd"
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: fdDirectory)) ?? []
            return entries.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: fdDirectory + "/" + $0)) == target }
        } && process.isRunning
    }

    /// Waits until every thread of process `pid` sleeps (state `S` in `/proc/PID/task/*/stat`):
    /// it is idle, waiting for input or for room to write; false if it exited, or after the guard.
    @discardableResult
    static func waitUntilIdle(_ pid: Int32) -> Bool {
        var idle = false
        _ = poll {
            let taskDirectory = "/proc/\(pid)/task"
            guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: taskDirectory), !tasks.isEmpty else { return true }
            let states = tasks.compactMap { task -> Character? in
                guard let stat = try? String(contentsOfFile: "\(taskDirectory)/\(task)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return nil }
                return stat[stat.index(after: close)...].first { $0 != " " }
            }
            idle = !states.isEmpty && states.allSatisfy { $0 == "S" }
            return idle
        }
        return idle
    }

    /// ``waitUntilIdle(_:)`` for this child.
    @discardableResult
    func waitUntilIdle() -> Bool { Self.waitUntilIdle(process.processIdentifier) }

    /// Polls `condition` every few milliseconds until it holds; false only after the hang guard.
    static func poll(_ condition: () -> Bool) -> Bool {
        let deadline = HangGuard.deadline
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)   // the poll's period, not a wait deciding anything
        }
        return true
    }

    /// Waits for the exit (killing the child once the hang guard has passed); returns its exit
    /// status, or nil when it had to be killed or died of a signal.
    func finish() -> Int32? {
        let deadline = HangGuard.deadline
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }   // polls for the exit
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            closeInput()
            return nil
        }
        closeInput()
        let drained = HangGuard.deadline   // the readers end at the pipes' end, which the exit brings
        condition.lock()
        while readersDone < 2 && condition.wait(until: drained) {}
        condition.unlock()
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }

    var lines: [(line: String, time: Double)] { condition.lock(); defer { condition.unlock() }; return received }
    var stderr: String { condition.lock(); defer { condition.unlock() }; return String(decoding: errorData, as: UTF8.self) }
}

/// Small synthetic Y4M streams (a moving gradient) for feeding frames one at a time.
enum SyntheticY4M {
    static let width = 64, height = 48

    static var header: Data { Data("YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C420jpeg\n".utf8) }

    static func frame(_ index: Int) -> Data {
        var bytes = Array("FRAME\n".utf8)
        for y in 0..<height { for x in 0..<width { bytes.append(UInt8(truncatingIfNeeded: 2 * x + y + 8 * index)) } }
        bytes += [UInt8](repeating: 128, count: 2 * (width / 2) * (height / 2))
        return Data(bytes)
    }

    static func stream(frames: Int) -> Data {
        var data = header
        for i in 0..<frames { data.append(frame(i)) }
        return data
    }
}
