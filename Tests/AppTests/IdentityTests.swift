import Foundation
import Testing

/// Identities on real video, as a user sees them in `posekit pose` output: each shared clip shows
/// one person, who must keep one `"id"` and be reported alone; the multi-person clips that
/// `scripts/identity-clips.sh` makes from them (two people side by side; one walking in front of
/// the other) must give each person one id (docs/cli.md "Identities").
struct IdentityTests {
    /// The `"poses"` of each line of `posekit pose` output.
    static func poses(_ lines: [String]) throws -> [[[String: Any]]] {
        try lines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["poses"] as? [[String: Any]])
        }
    }

    /// How often the id of the best-scoring pose of a frame (the person) changes along the lines.
    static func identityChanges(_ lines: [String]) throws -> Int {
        var changes = 0, last: Int?
        for frame in try poses(lines) {
            guard let best = frame.max(by: { ($0["score"] as! Double) < ($1["score"] as! Double) }) else { continue }
            let id = try #require(best["id"] as? Int, "a video pose without an id")
            if let last, last != id { changes += 1 }
            last = id
        }
        return changes
    }

    /// `posekit pose` with its defaults on each shared clip: no id change, at most 5 % of frames
    /// with more than one person (0.7.1: 0 to 183 changes; 0.4 % to 92 % of frames).
    @Test(arguments: CLI.sharedClipNames)
    func aSharedClipShowsOnePersonWithOneIdentity(name: String) throws {
        let result = try CLI.run(["pose", "-"], stdin: try CLI.sharedClip(name).y4m)
        #expect(result.status == 0, "\(result.stderr)")
        let frames = try Self.poses(result.lines)
        #expect(frames.count > 200)
        #expect(try Self.identityChanges(result.lines) == 0, "\(name): the person's id changed")
        let crowded = frames.filter { $0.count > 1 }.count
        #expect(Double(crowded) <= 0.05 * Double(frames.count), "\(name): \(crowded) of \(frames.count) frames report more than one person")
        #expect(frames.filter(\.isEmpty).count <= frames.count / 20, "\(name): the person is missing from many frames")
    }

    /// The composites, through `scripts/identity-clips.sh` and `scripts/identity-report.py` (the
    /// recipe and the measure the README quotes): every known person keeps one id for at least
    /// 97 % of their poses, different people have different ids, and IDF1 is at least 0.95.
    @Test func eachPersonOfTheCompositeClipsKeepsOneIdentity() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let made = try CLI.runProcess(URL(fileURLWithPath: "/bin/bash"),
                                      [CLI.repositoryRoot.appendingPathComponent("scripts/identity-clips.sh").path, CLI.shared.path, dir.path])
        #expect(made.status == 0, "\(made.stderr)")
        let manifest = try String(contentsOf: dir.appendingPathComponent("clips.tsv"), encoding: .utf8)
        let rows = manifest.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == 2)
        for row in rows {
            let clip = dir.appendingPathComponent(row[0])
            let result = try CLI.run(["pose", "-"], stdinFile: clip)
            #expect(result.status == 0, "\(result.stderr)")
            let output = dir.appendingPathComponent(row[0] + ".jsonl")
            try result.stdout.write(to: output)
            var arguments = [CLI.repositoryRoot.appendingPathComponent("scripts/identity-report.py").path, "--json", "--regions", row[1]]
            if row.count > 2, !row[2].isEmpty { arguments += ["--moving", row[2]] }
            let report = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments + [output.path])
            #expect(report.status == 0, "\(report.stderr)")
            let measured = try #require(try JSONSerialization.jsonObject(with: report.stdout) as? [String: Any])
            let idf1 = try #require(measured["idf1"] as? Double)
            #expect(idf1 >= 0.95, "\(row[0]): IDF1 \(idf1)")
            let perPerson = try #require(measured["ids_per_person"] as? [String: [String: Int]])
            var mainIDs = Set<String>()
            for (person, counts) in perPerson {
                let total = counts.values.reduce(0, +)
                let main = try #require(counts.max { $0.value < $1.value }, "\(row[0]): \(person) never found")
                #expect(Double(main.value) >= 0.97 * Double(total), "\(row[0]): \(person) has ids \(counts)")
                mainIDs.insert(main.key)
            }
            #expect(mainIDs.count == perPerson.count, "\(row[0]): two people share an id: \(perPerson)")
        }
    }
}
