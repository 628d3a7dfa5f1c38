import ArgumentParser
import Foundation
import PoseKit

/// Many inputs in, one JSON Lines file per input out, shareable across processes and machines;
/// shared by `pose` and `actions`.
struct BatchOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Also read inputs from this file, one path per line (blank lines ignored; - for stdin).",
        valueName: "file"), completion: .file())
    var inputsFrom: String?

    @Option(name: .long, help: ArgumentHelp(
        "Write one JSON Lines file per input, DIR/<input name without extension>.jsonl, each atomically; inputs whose file is already there are skipped (resume); failed inputs are listed at the end.",
        valueName: "dir"), completion: .directory)
    var outputDir: String?

    @Option(name: .long, help: ArgumentHelp(
        "Process only share I of N (0 <= I < N): the inputs at positions I, I+N, I+2N, ... of the full list, so N processes or machines given the same list split it without overlap.",
        valueName: "I/N"))
    var shard: String?

    /// `--shard` parsed.
    var selectedShard: Shard? { shard.flatMap { Shard($0, counts: Limits.shardCount.range) } }

    func validate() throws {
        if let shard, Shard(shard, counts: Limits.shardCount.range) == nil {
            throw ValidationError("--shard must be I/N with 0 <= I < N and N within \(Limits.shardCount.text), got '\(shard)'")
        }
    }

    /// The inputs this process handles: the arguments, then the lines of `--inputs-from` (each
    /// directory among them replaced by its images and videos in name order), then this shard's share. With `--output-dir`, inputs must be named files whose output names
    /// differ (checked on the whole list, so every shard agrees).
    func selectedInputs(arguments: [String]) throws -> [String] {
        var all = arguments
        if let inputsFrom {
            // Bounded: entries, bytes per line and in all (`yes x | posekit pose --inputs-from -`
            // and /dev/urandom would otherwise grow until memory runs out before any input).
            var entries = 0, bytes = 0, lineNumber = 0
            try CLIError.reading(inputsFrom) {
                try LineReader(path: inputsFrom, maximumLength: Limits.inputListLineBytes).forEachLine { line in
                    lineNumber += 1
                    guard !line.utf8.contains(0) else {
                        throw CLIError("\(inputsFrom): line \(lineNumber) holds a NUL byte; give one path per line (not find -print0 output)")
                    }
                    let path = line.trimmingCharacters(in: .whitespaces)
                    guard !path.isEmpty else { return }
                    entries += 1
                    bytes += path.utf8.count
                    guard entries <= Limits.inputListEntries, bytes <= Limits.inputListBytes else {
                        throw CLIError("\(inputsFrom): more than \(Limits.inputListEntries) inputs or \(Limits.inputListBytes >> 20) MiB of paths; split the list (--shard, or several runs)")
                    }
                    all.append(path)
                }
            }
        }
        all = try MediaDirectory.expand(all)
        if all.isEmpty { throw ValidationError("give at least one input (a file, - for stdin, or --inputs-from FILE)") }
        if all.filter({ $0 == "-" }).count + (inputsFrom == "-" ? 1 : 0) > 1 {
            throw ValidationError("standard input (-) can be read only once")
        }
        if let outputDir {
            if all.contains("-") { throw ValidationError("--output-dir names each output after its input file, so - (stdin) cannot be one") }
            var owner: [String: String] = [:]
            for input in all {
                let name = BatchRun.outputName(for: input)
                if let other = owner[name], other != input {
                    throw ValidationError("\(other) and \(input) would both write \(outputDir)/\(name); rename one")
                }
                owner[name] = input
            }
        }
        guard let shard = selectedShard else { return all }
        return all.enumerated().filter { shard.contains(position: $0.offset) }.map(\.element)
    }
}

extension BatchOptions {
    /// Every file a run writes, with the option that names it: one per input under
    /// `--output-dir`, else `--json` (standard output when not given) and `--overlay`.
    func outputs(for inputs: [String], json: String?, overlay: String?) -> [(option: String, path: String)] {
        if let outputDir { return inputs.map { ("--output-dir", outputDir + "/" + BatchRun.outputName(for: $0)) } }
        return [(json == nil ? "standard output" : "--json", json ?? "-")] + (overlay.map { [("--overlay", $0)] } ?? [])
    }
}
