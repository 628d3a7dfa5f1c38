import Foundation
import Testing

/// A directory argument: every image and video directly in it, in name order, hidden files and
/// other files and subdirectories skipped; with --output-dir, --shard and --inputs-from; an
/// empty directory is a one-line error.
@Suite(.serialized) struct InputDirectoryTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let fast = ["--input-size", "257", "--threads", "1"]
    static let names = ["coco_000000000785.ppm", "mpii_052475643.ppm", "coco_000000040083.ppm"]

    /// `dir/media`, holding the three PPMs as b.ppm, a.ppm, C.ppm plus files to skip.
    func makeMedia(in dir: URL) throws -> URL {
        let media = dir.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media.appendingPathComponent("sub.ppm"), withIntermediateDirectories: true)
        for (name, target) in zip(Self.names, ["b.ppm", "a.ppm", "C.ppm"]) {
            try FileManager.default.copyItem(at: Self.images.appendingPathComponent(name), to: media.appendingPathComponent(target))
        }
        try FileManager.default.copyItem(at: Self.images.appendingPathComponent(Self.names[0]), to: media.appendingPathComponent(".hidden.ppm"))
        try FileManager.default.copyItem(at: Self.images.appendingPathComponent(Self.names[0]), to: media.appendingPathComponent("sub.ppm/d.ppm"))
        try Data("notes".utf8).write(to: media.appendingPathComponent("notes.txt"))
        return media
    }

    func sources(_ result: CLI.Result) throws -> [String] {
        try result.lines.map { try #require((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["source"] as? String) }
    }

    @Test func directoryIsItsMediaFilesInNameOrder() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let media = try makeMedia(in: dir)
        let result = try CLI.run(["pose"] + Self.fast + [media.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try sources(result) == ["C.ppm", "a.ppm", "b.ppm"].map { media.path + "/" + $0 })
        // The same as naming the files.
        let named = try CLI.run(["pose"] + Self.fast + ["C.ppm", "a.ppm", "b.ppm"].map { media.path + "/" + $0 })
        #expect(named.stdout == result.stdout)
    }

    @Test func directoryWithOutputDirShardAndInputsFrom() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let media = try makeMedia(in: dir)
        let whole = dir.appendingPathComponent("whole"), sharded = dir.appendingPathComponent("sharded")
        let one = try CLI.run(["pose"] + Self.fast + ["--output-dir", whole.path, media.path + "/"])
        #expect(one.status == 0, "stderr: \(one.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: whole.path).sorted() == ["C.jsonl", "a.jsonl", "b.jsonl"])
        let list = dir.appendingPathComponent("list.txt")
        try Data((media.path + "\n").utf8).write(to: list)
        for shard in ["0/2", "1/2"] {
            let part = try CLI.run(["pose"] + Self.fast + ["--inputs-from", list.path, "--shard", shard, "--output-dir", sharded.path])
            #expect(part.status == 0, "stderr: \(part.stderr)")
        }
        for name in ["C.jsonl", "a.jsonl", "b.jsonl"] {
            let expected = try Data(contentsOf: whole.appendingPathComponent(name))
            #expect(try Data(contentsOf: sharded.appendingPathComponent(name)) == expected, "\(name)")
        }
    }

    @Test func actionsTakesADirectoryWithOutputDir() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let media = try makeMedia(in: dir)
        let refused = try CLI.run(["actions"] + Self.fast + [media.path])
        #expect(refused.status == 2 && refused.stderr.contains("--output-dir"), "stderr: \(refused.stderr)")
        let out = dir.appendingPathComponent("actions")
        let result = try CLI.run(["actions"] + Self.fast + ["--output-dir", out.path, media.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["C.jsonl", "a.jsonl", "b.jsonl"])
    }

    @Test func emptyDirectoryIsOneLineError() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: dir.appendingPathComponent(".hidden.ppm"))
        try Data("x".utf8).write(to: dir.appendingPathComponent("readme.txt"))
        for command in [["pose"], ["actions"]] {
            let result = try CLI.run(command + [dir.path])
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("posekit: error: \(dir.path): no images or videos"), "stderr: \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}
