import ArgumentParser
import CPUFeatures
import PoseKit
#if canImport(Glibc)
import Glibc
#endif

/// The `posekit` command: body poses and actions from images and video streams.
///
/// Exit status follows ffmpeg-style tools: 0 on success, 1 on bad input or a runtime failure
/// (one line `posekit: error: ...` on stderr), 2 on usage errors (every option is checked
/// against `Limits` before any output), 141 when the reader of the output has gone, 128 + N when
/// stopped by signal N (SIGHUP 129, SIGINT 130, SIGTERM 143) after writing every finished frame.
@main
struct PosekitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "posekit",
        abstract: "Find people's body poses in images and video, and recognize what they are doing.",
        discussion: """
          posekit pose photo.jpg                 # every person's pose, JSON Lines
          posekit pose clip.mp4 > poses.jsonl    # one line per frame, with ids
          posekit hands photo.jpg                # every hand's 21 points
          posekit actions workout.mp4            # exercises and repetitions
          cat photo.jpg | posekit pose -         # standard input, any format

        Inputs are images (JPEG, PNG, PPM, ...), videos (MP4, MKV, WebM, Y4M, ...), \
        a webcam (/dev/video0), directories of them, or - for standard input, each \
        recognized from its first bytes; ffmpeg decodes what posekit does not read \
        itself. Outputs are JSON Lines, and images or video with the poses drawn.

        `posekit help <command>` shows a command's commonest uses and its options; \
        every option and output field: docs/cli.md.
        """,
        version: PoseKitVersion.current,
        subcommands: [PoseCommand.self, HandsCommand.self, ActionsCommand.self, ViewCommand.self, Eval.self, Import.self, Info.self, RunCommand.self, WeightsCommand.self, Bench.self, TrainActionsCommand.self]
    )

    static func main() async {
        StandardDescriptors.openClosedOnes()
        // Before anything compiled for the build's CPU runs (this target and CPUFeatures are
        // compiled for the baseline): a tuned build on a CPU without its instructions would die
        // of SIGILL in the first kernel.
        if let problem = CPUGuard.problem() {
            printToStandardError("posekit: error: \(problem)")
            Glibc.exit(1)
        }
        if let problem = GEMMKernel.environmentProblem ?? KernelISA.environmentProblem ?? ReducedPrecisionKernel.environmentProblem {
            printToStandardError("posekit: error: \(problem)")
            Glibc.exit(1)
        }
        // An instruction set the CPU lacks is not an error: the kernels run the best one it has.
        if let fallback = KernelISA.environmentFallback { printToStandardError("posekit: warning: \(fallback)") }
        // A closed output pipe must end the program with a status, not kill it with a signal;
        // a file-size limit likewise surfaces as a write error (EFBIG) naming the output.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        let command: ParsableCommand
        do {
            command = try parseAsRoot(rawArguments)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))   // --help, --version
                StandardOutput.flushOrExit()
                Glibc.exit(0)
            }
            printToStandardError(fullMessage(for: error))
            Glibc.exit(2)
        }
        // A stop signal recorded while the run ended anyway (its input ended at that moment, or it
        // failed) still decides the exit status: a signal is never lost.
        do {
            try await run(command)
            StandardOutput.flushOrExit()
        } catch let exit as ExitCode {
            StandardOutput.flushOrExit()
            SignalHandling.exit(exit.rawValue)
        } catch FrameIOError.brokenPipe {
            SignalHandling.exit(141)  // the reader of our output went away: stop quietly, as SIGPIPE would
        } catch FrameIOError.interrupted(let signal) {
            exitStopped(by: signal)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))   // `posekit help CMD` arrives here
                StandardOutput.flushOrExit()
                Glibc.exit(0)
            }
            if code == .validationFailure {
                printToStandardError(fullMessage(for: error))
                Glibc.exit(2)
            }
            printToStandardError("posekit: error: \(CLIError.describe(error))")
            SignalHandling.exit(1)
        }
        SignalHandling.exit(0)
    }

    /// Runs `command`; then, however it ended, every ffmpeg child still decoding for a reading
    /// task that the exit which follows does not wait for is ended and reaped.
    private static func run(_ command: ParsableCommand) async throws {
        defer { MediaReader.endChildProcesses() }
        if var asynchronous = command as? AsyncParsableCommand {
            try await asynchronous.run()
        } else {
            var runnable = command
            try runnable.run()
        }
    }

    /// The arguments as given: a name that is not UTF-8 keeps its bytes (`FileName`), where
    /// `CommandLine.arguments` would make it U+FFFD and open another file.
    private static var rawArguments: [String] {
        (1..<Int(CommandLine.argc)).compactMap { CommandLine.unsafeArgv[$0].map { FileName.decode(cString: $0) } }
    }

    /// Exits 128 + N with the stop message (signal N was recorded: ``SignalHandling/exit(_:)``
    /// finds it).
    private static func exitStopped(by signal: Int32) -> Never {
        StandardOutput.flushOrExit()
        if InputCancellation.signal == nil { InputCancellation.cancel(signal: signal) }
        SignalHandling.exit(SignalHandling.exitStatus(for: signal))
    }
}
