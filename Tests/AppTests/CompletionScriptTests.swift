import Foundation
import Testing

/// `posekit --generate-completion-script SHELL` (swift-argument-parser) for bash, zsh and fish
/// covers every subcommand; the bash script parses.
@Suite struct CompletionScriptTests {
    static let subcommands = ["pose", "actions", "eval", "import", "info", "bench", "train-actions"]

    @Test(arguments: ["bash", "zsh", "fish"])
    func scriptGeneratesForEverySubcommand(_ shell: String) throws {
        let result = try CLI.run(["--generate-completion-script", shell])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        for name in Self.subcommands {
            #expect(result.stdoutText.contains(name), "\(shell) script lacks \(name)")
        }
        for option in ["input-size", "output-dir", "realtime", "ground-truth"] {
            // fish lists long options as `-l name`, bash and zsh as `--name`.
            let spelled = shell == "fish" ? "'\(option)" : "--" + option
            #expect(result.stdoutText.contains(spelled), "\(shell) script lacks \(spelled)")
        }
        if shell == "bash" {
            let dir = try CLI.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let script = dir.appendingPathComponent("posekit.bash")
            try result.stdout.write(to: script)
            let check = try CLI.runProcess(URL(fileURLWithPath: "/bin/bash"), ["-n", script.path])
            #expect(check.status == 0, "bash -n: \(check.stderr)")
        }
    }
}
