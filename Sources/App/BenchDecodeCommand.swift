import ArgumentParser
import Foundation
import KernelBenchmarks

/// `posekit bench decode`: multi-person decoding time as a frame holds more people.
struct BenchDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Time multi-person decoding on synthetic frames of 1, 10, 30, ... people, side by side.",
        discussion: """
            Each frame is synthetic heads (the grid of a 513 input at output stride 16 by default: \
            33x33; 65 is 513 at stride 8, 97 is 769 at stride 8) holding that many standing people \
            whose every keypoint peaks on its cell, so decoding finds all of them. Each round \
            decodes every frame once (interleaved, so all see the same phases of a shared \
            machine); prints the median and fastest milliseconds per frame and per decoded pose. \
            One core; the network is not run.

            EXAMPLES
              posekit bench decode
              posekit bench decode --people 1 10 30 --max-poses 20
              posekit bench decode --grid 97 --people 1 10 30 100
            """)

    @Option(parsing: .upToNextOption, help: "People per synthetic frame, one frame each (\(Limits.benchPeople.text)).")
    var people: [Int] = [1, 10, 30]

    @Option(help: "Output grid rows and columns (\(Limits.benchDecodeGrid.text)).")
    var grid = 33

    @Option(help: ArgumentHelp("Most poses decoded per frame (default: each frame's people; \(Limits.maxPoses.text)).", valueName: "n"))
    var maxPoses: Int?

    @Option(help: "Timed rounds (the median is reported; \(Limits.benchRuns.text)).")
    var runs = 300

    func validate() throws {
        try Limits.benchPeople.check(people, "--people")
        try Limits.benchDecodeGrid.check(grid, "--grid")
        if let maxPoses { try Limits.maxPoses.check(maxPoses, "--max-poses") }
        try Limits.benchRuns.check(runs, "--runs")
    }

    func run() throws {
        let results = try benchmarkDecode(gridSize: grid, crowds: people, maxPoses: maxPoses, iterations: runs)
        print("multi-person decoding, \(grid)x\(grid) grid, at most \(maxPoses.map(String.init) ?? "every person's") poses, median of \(runs) interleaved rounds")
        print("  people  poses  median ms  fastest ms  median us/pose")
        for r in results {
            print(String(format: "  %6d  %5d  %9.4f  %10.4f  %14.2f", r.people, r.posesDecoded, r.medianMilliseconds, r.minimumMilliseconds,
                         r.medianMilliseconds * 1e3 / Double(max(r.posesDecoded, 1))))
        }
    }
}
