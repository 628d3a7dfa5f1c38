import Foundation
import Testing

/// Help that copies: every command's `--help` leads with its commonest uses, and every example
/// line (a command with its comment) survives an 80-column terminal whole, so a copied line runs.
@Suite struct HelpTests {
    static let commands: [[String]] = [
        ["pose"], ["hands"], ["actions"], ["eval"], ["run"], ["info"], ["import"], ["weights"], ["weights", "list"],
        ["weights", "install"], ["bench"], ["train-actions"], [],
    ]

    /// Lines of `posekit ARGS --help` at a terminal of `columns`.
    static func help(_ arguments: [String], columns: Int) throws -> [String] {
        let result = try CLI.run(arguments + ["--help"], environment: ["COLUMNS": "\(columns)"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdoutText.components(separatedBy: "\n")
    }

    /// An example line: indented, starting with a command a user types.
    static func isExample(_ line: String) -> Bool {
        let text = line.drop { $0 == " " }
        return line.hasPrefix("  ") && ["posekit ", "ffmpeg ", "cat ", "ls "].contains { text.hasPrefix($0) }
    }

    @Test(arguments: commands)
    func examplesSurviveEightyColumns(_ command: [String]) throws {
        let wide = try Self.help(command, columns: 400).filter(Self.isExample)
        let narrow = try Self.help(command, columns: 80)
        for line in wide {
            #expect(line.count <= 80, "\(command): example wider than 80 columns: \(line)")
            #expect(narrow.contains(line), "\(command): wrapped at 80 columns: \(line)")
        }
    }

    /// The first lines after the overview are examples: five for the commands that take inputs.
    @Test(arguments: [["pose"], ["hands"], ["actions"], ["eval"], ["run"], [] as [String]])
    func helpLeadsWithTheCommonestUses(_ command: [String]) throws {
        let lines = try Self.help(command, columns: 80)
        // OVERVIEW: the abstract (perhaps wrapped), a blank line, then the discussion.
        let overview = try #require(lines.firstIndex { $0.hasPrefix("OVERVIEW:") })
        let blank = try #require(lines[overview...].firstIndex { $0.trimmingCharacters(in: .whitespaces).isEmpty })
        let examples = lines[(blank + 1)...].prefix { Self.isExample($0) }
        #expect(examples.count == 5, "\(command): \(Array(lines.prefix(12)))")
    }

    /// Short enough to read: the rarely set options are in --help-hidden and docs/cli.md's
    /// reference (pose --help was 273 lines).
    @Test(arguments: [["pose"], ["hands"], ["actions"]])
    func helpIsShort(_ command: [String]) throws {
        let lines = try Self.help(command, columns: 80)
        #expect(lines.count <= 160, "\(command): \(lines.count) lines")
        #expect(lines.contains { $0.contains("docs/cli.md") })
        let hidden = try CLI.run(command + ["--help-hidden"], environment: ["COLUMNS": "80"]).stdoutText
        #expect(hidden.components(separatedBy: "\n").count > lines.count || command == ["hands"], "\(command)")
    }
}
