import Foundation

/// The one JSON form of a benchmark's report (`posekit bench ... --json`): one object, its keys sorted.
public enum BenchmarkReport {
    /// `report` as one line of JSON.
    public static func json(_ report: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self)
    }
}
