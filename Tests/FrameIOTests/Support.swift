import Foundation
import Testing
@testable import FrameIO

/// Where `../shared` is: env POSEKIT_SHARED, else beside the repository root (derived from this file's path).
let sharedDirectory: URL = {
    if let env = ProcessInfo.processInfo.environment["POSEKIT_SHARED"] { return URL(fileURLWithPath: env) }
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared")
}()

/// A real clip from shared/media/videos (640×360 after scaling in ffmpeg tests).
let testClip = sharedDirectory.appendingPathComponent("media/videos/409416541_Independent-Study__Jumping_Jacks.mp4").path

/// A fresh temporary directory, which the caller removes when it ends (also on failure):
/// `defer { try? FileManager.default.removeItem(at: dir) }`. Synchronous tests use
/// ``withTemporaryDirectory(_:)``, which does that.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("frameio-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs `body` on a fresh temporary directory and removes it afterwards, also when `body` throws.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let dir = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    return try body(dir)
}

struct CommandFailed: Error, CustomStringConvertible {
    var description: String
}

/// Runs ffmpeg (quiet, overwrite) with `arguments`; throws with its stderr on failure.
@discardableResult
func ffmpeg(_ arguments: [String], stdin: Data? = nil) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments
    if stdin != nil { process.arguments!.remove(at: 2) }  // -nostdin would refuse our input
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    if stdin != nil { process.standardInput = input }
    try process.run()
    if let stdin {
        DispatchQueue.global().async {
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CommandFailed(description: "ffmpeg \(arguments.joined(separator: " ")): \(String(decoding: errData, as: UTF8.self))")
    }
    return outData
}

/// Every frame of a Y4M file.
func readAllY4M(_ path: String) throws -> (Y4MStreamHeader, [YUVFrame]) {
    let reader = try Y4MReader(source: try ByteSource(path: path))
    var frames: [YUVFrame] = []
    while let f = try reader.next() { frames.append(f) }
    return (reader.header, frames)
}

/// Every image of a PNM file.
func readAllPNM(_ path: String) throws -> [RGBImage] {
    let reader = PNMReader(source: try ByteSource(path: path))
    var images: [RGBImage] = []
    while let i = try reader.next() { images.append(i) }
    return images
}

/// Mean and max absolute difference per channel value.
func difference(_ a: RGBImage, _ b: RGBImage) -> (mean: Double, max: Int) {
    precondition(a.width == b.width && a.height == b.height)
    var total = 0, worst = 0
    for i in 0..<a.pixels.count {
        let d = abs(Int(a.pixels[i]) - Int(b.pixels[i]))
        total += d
        worst = max(worst, d)
    }
    return (Double(total) / Double(a.pixels.count), worst)
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// The error thrown by `body`, or nil.
func thrownError(_ body: () throws -> Void) -> FrameIOError? {
    do { try body() } catch let e as FrameIOError { return e } catch { return nil }
    return nil
}
