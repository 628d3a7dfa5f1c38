import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `pose --model blazepose --mask FILE`: the same mask in every format, grey where the docs say
/// grey. The PGM is the reference (written by PoseKit itself, level by level); the PNG decoded by
/// ffmpeg must be 8-bit grey with exactly those levels, and the `.npy` must hold probabilities
/// whose `round(255·p)` are those levels.
@Suite(.serialized) struct MaskOutputTests {
    static let image = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path

    @Test func masksAreGreyInEveryFormatAndNpyKeepsTheProbabilities() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var outputs: [String: URL] = [:]
        for ext in ["pgm", "png", "npy"] {
            let mask = dir.appendingPathComponent("mask.\(ext)")
            let result = try CLI.run(["pose", "--model", "blazepose", "--mask", mask.path, Self.image])
            #expect(result.status == 0, "\(ext): \(result.stderr)")
            outputs[ext] = mask
        }
        // The reference: binary PGM, 640x425.
        let pgm = try [UInt8](Data(contentsOf: try #require(outputs["pgm"])))
        let header = Array("P5\n640 425\n255\n".utf8)
        try #require(pgm.starts(with: header) && pgm.count == header.count + 640 * 425, "PGM of \(pgm.count) bytes")
        let levels = Array(pgm[header.count...])
        #expect(levels.contains(255) && levels.contains(0), "a person and background")

        // PNG: 8-bit grey (one channel), and its levels are the PGM's exactly.
        let png = try #require(outputs["png"])
        let probe = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["ffprobe", "-v", "error", "-select_streams", "v:0",
                                                                              "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", png.path])
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "gray", "PNG pixel format \(probe.stdoutText)")
        let decoded = try CLI.ffmpeg(["-i", png.path, "-f", "image2pipe", "-c:v", "pgm", "-"])
        #expect([UInt8](decoded) == pgm, "the PNG's levels are the PGM's")

        // NPY: float32 [425, 640] probabilities; round(255 p) gives the PGM.
        let npy = try [UInt8](Data(contentsOf: try #require(outputs["npy"])))
        try #require(npy.count == 128 + 4 * 640 * 425, "npy of \(npy.count) bytes")
        let text = String(decoding: npy[10..<128], as: UTF8.self)
        #expect(npy.starts(with: [0x93] + Array("NUMPY".utf8) + [1, 0]) && npy[8] == 118 && npy[9] == 0)
        #expect(text.contains("'descr': '<f4'") && text.contains("'fortran_order': False") && text.contains("'shape': (425, 640)")
                && text.hasSuffix("\n"), "header \(text)")
        let values = npy[128...].withUnsafeBytes { raw in (0..<(640 * 425)).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) } }
        #expect(values.allSatisfy { $0 >= 0 && $0 <= 1 })
        let fromProbabilities = values.map { UInt8(min(max($0, 0), 1) * 255 + 0.5) }
        #expect(fromProbabilities == levels)
        #expect(values.contains { $0 > 0.01 && $0 < 0.99 }, "probabilities, not levels")
    }

    /// A `.npy` mask goes to a regular file (its header is completed at the end): a FIFO is
    /// refused in one line before any work.
    @Test func npyMasksNeedARegularFile() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("mask.npy").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let result = try CLI.run(["pose", "--model", "blazepose", "--mask", fifo, Self.image])
        #expect(result.status == 1 && result.stderr.contains("a .npy mask is written to a regular file"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
