import Foundation
import Testing

/// Batches: one JSON Lines file per input in --output-dir, resume, failures summarised at the
/// end, and shards (2 processes, xargs, GNU parallel) whose union equals one unsharded run.
@Suite(.serialized) struct BatchTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let inputs = ["coco_000000000785.ppm", "mpii_052475643.ppm", "h36m_S7_Greeting.55011271_000396.ppm",
                         "coco_000000040083.ppm", "coco_000000196141.ppm"].map { images.appendingPathComponent($0).path }
    static let fast = ["--input-size", "257", "--threads", "1"]

    /// Every file of `dir` with its bytes.
    func contents(of dir: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            files[name] = try Data(contentsOf: dir.appendingPathComponent(name))
        }
        return files
    }

    @Test func shardsUnionEqualsOneRunByteForByte() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for input in Self.inputs { #expect(FileManager.default.fileExists(atPath: input), "missing \(input)") }
        let list = dir.appendingPathComponent("inputs.txt")
        try Data((Self.inputs.joined(separator: "\n") + "\n\n").utf8).write(to: list)

        let whole = dir.appendingPathComponent("whole")
        let one = try CLI.run(["pose"] + Self.fast + ["--output-dir", whole.path] + Self.inputs)
        #expect(one.status == 0, "stderr: \(one.stderr)")
        let expected = try contents(of: whole)
        #expect(expected.count == Self.inputs.count)
        for (name, data) in expected {
            #expect(name.hasSuffix(".jsonl") && String(decoding: data, as: UTF8.self).split(separator: "\n").count == 1)
        }

        // Two shards as two processes at the same time, from the same list.
        let sharded = dir.appendingPathComponent("sharded")
        let shards = try (0..<2).map { i in
            try LiveProcess(["pose"] + Self.fast + ["--inputs-from", list.path, "--shard", "\(i)/2", "--output-dir", sharded.path])
        }
        for shard in shards { #expect(shard.finish() == 0, "stderr: \(shard.stderr)") }
        #expect(try contents(of: sharded) == expected)

        // The xargs recipe (two processes, inputs handed out two at a time) and the GNU parallel
        // recipe (installed by `make setup`; one shard per job).
        let recipes = [
            "xargs -P 2 -n 2 \"$0\" pose --input-size 257 --threads 1 --output-dir \"$1\" < \"$2\"",
            "parallel --will-cite -j 2 \"$0\" pose --input-size 257 --threads 1 --inputs-from \"$2\" --shard {}/3 --output-dir \"$1\" ::: 0 1 2",
        ]
        for (index, script) in recipes.enumerated() {
            let out = dir.appendingPathComponent("recipe\(index)")
            let result = try CLI.runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, CLI.executable.path, out.path, list.path])
            #expect(result.status == 0, "\(script): \(result.stderr)")
            #expect(try contents(of: out) == expected, "\(script)")
        }
    }

    @Test func failedInputsAreSummarisedAndResumeSkipsFinishedOnes() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("broken.ppm")
        try Data("P6 64 64 255\n".utf8 + [UInt8](repeating: 9, count: 100)).write(to: broken)
        let out = dir.appendingPathComponent("out")
        let inputs = [Self.inputs[0], broken.path, Self.inputs[1]]
        let first = try CLI.run(["pose"] + Self.fast + ["--output-dir", out.path] + inputs)
        #expect(first.status == 1)
        let errorLines = first.stderr.split(separator: "\n").filter { $0.hasPrefix("posekit: error: ") }
        #expect(errorLines.count == 1 && errorLines[0].contains("broken.ppm"), "stderr: \(first.stderr)")
        #expect(first.stderr.split(separator: "\n").last?.contains("1 of 3") == true, "stderr: \(first.stderr)")
        let written = try contents(of: out)
        #expect(Set(written.keys) == ["coco_000000000785.jsonl", "mpii_052475643.jsonl"], "a broken input leaves no complete-looking file")

        // Resume: finished outputs are skipped (not rewritten), the broken one is tried again.
        // The finished file is dated in the past first, so a rewrite would show in its date
        // (and a replacement in its inode) however fast the run is.
        let finished = out.appendingPathComponent("mpii_052475643.jsonl").path
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: finished)
        func identity() throws -> [String] {
            let attributes = try FileManager.default.attributesOfItem(atPath: finished)
            return ["\(attributes[.modificationDate] ?? "")", "\(attributes[.systemFileNumber] ?? "")"]
        }
        let before = try identity()
        let again = try CLI.run(["pose"] + Self.fast + ["--output-dir", out.path] + inputs)
        #expect(again.status == 1 && again.stderr.contains("skipped 2 input(s)"), "stderr: \(again.stderr)")
        #expect(try identity() == before)
        #expect(try contents(of: out) == written)

        // Outputs that would collide are refused before anything runs.
        let twin = dir.appendingPathComponent("twin")
        try FileManager.default.createDirectory(at: twin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.inputs[0], toPath: twin.appendingPathComponent("coco_000000000785.ppm").path)
        let clash = try CLI.run(["pose", "--output-dir", out.path, Self.inputs[0], twin.appendingPathComponent("coco_000000000785.ppm").path])
        #expect(clash.status == 2 && clash.stderr.contains("would both write"), "stderr: \(clash.stderr)")
    }

    @Test func actionsWritesOneFilePerVideo() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clips = try (0..<2).map { i -> String in
            let url = dir.appendingPathComponent("clip\(i).y4m")
            try SyntheticY4M.stream(frames: 20 + 10 * i).write(to: url)
            return url.path
        }
        let out = dir.appendingPathComponent("actions")
        let batch = try CLI.run(["actions", "--input-size", "257", "--threads", "1", "--output-dir", out.path] + clips)
        #expect(batch.status == 0, "stderr: \(batch.stderr)")
        for (i, clip) in clips.enumerated() {
            let single = try CLI.run(["actions", "--input-size", "257", "--threads", "1", clip])
            let written = try Data(contentsOf: out.appendingPathComponent("clip\(i).jsonl"))
            #expect(written == single.stdout && !written.isEmpty)
        }
    }

    /// The deploy/ files parse, and the Job runs the documented sharded command.
    @Test func deployFilesAreWellFormed() throws {
        let deploy = CLI.repositoryRoot.appendingPathComponent("deploy")
        let check = """
            import sys, yaml
            job = yaml.safe_load(open(sys.argv[1]))
            spec = job["spec"]
            assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job", "not a batch/v1 Job"
            assert spec["completionMode"] == "Indexed", "not an Indexed Job"
            container = spec["template"]["spec"]["containers"][0]
            shards = [e["value"] for e in container["env"] if e["name"] == "SHARDS"][0]
            assert int(shards) == spec["completions"] == spec["parallelism"], "SHARDS, completions and parallelism differ"
            script = " ".join(container["args"])
            assert "--shard \\"${JOB_COMPLETION_INDEX}/${SHARDS}\\"" in script and "--output-dir" in script, script
            print(script)
            """
        let yaml = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", check, deploy.appendingPathComponent("posekit-job.yaml").path])
        #expect(yaml.status == 0, "posekit-job.yaml: \(yaml.stderr)")

        // Containerfile: every instruction is one Docker knows, it has a FROM first and an ENTRYPOINT.
        let text = try String(contentsOf: deploy.appendingPathComponent("Containerfile"), encoding: .utf8)
        let known: Set<String> = ["FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME",
                                  "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"]
        var instructions: [String] = []
        var continued = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            defer { continued = trimmed.hasSuffix("\\") }
            if continued || trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let word = String(trimmed.prefix { !$0.isWhitespace })
            #expect(known.contains(word), "Containerfile: unknown instruction \(word)")
            instructions.append(word)
        }
        #expect(instructions.drop { $0 == "ARG" }.first == "FROM" && instructions.contains("ENTRYPOINT"))
        for source in text.split(separator: "\n").filter({ $0.hasPrefix("COPY ") && !$0.contains("--from") }) {
            for path in source.split(separator: " ").dropFirst().dropLast() where !path.contains("*") {
                #expect(FileManager.default.fileExists(atPath: CLI.repositoryRoot.appendingPathComponent(String(path)).path),
                        "Containerfile copies \(path), which the repository lacks")
            }
        }
    }
}
