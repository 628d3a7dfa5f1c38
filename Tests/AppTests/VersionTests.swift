import Foundation
import Testing

/// `posekit --version` prints the version that the newest CHANGELOG.md release names (an
/// "Unreleased" section on top, changes not numbered yet, is skipped).
@Suite struct VersionTests {
    @Test func versionMatchesTheNewestChangelogEntry() throws {
        let result = try CLI.run(["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        let printed = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let changelog = try String(contentsOf: CLI.repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") && !$0.hasPrefix("## Unreleased") })
        let newest = heading.dropFirst(3).split(separator: " ").first.map(String.init)
        #expect(!printed.isEmpty)
        #expect(newest == printed, "CHANGELOG's newest entry \(String(describing: newest)), --version \(printed)")
    }
}
