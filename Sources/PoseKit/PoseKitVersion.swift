/// PoseKit's version, in one place: what `posekit --version` prints and what a program built on
/// the library can report. The newest release heading of CHANGELOG.md names the same version (a
/// test checks), and a release commit is tagged with it.
///
///     print("PoseKit \(PoseKitVersion.current)")
public enum PoseKitVersion {
    /// The version, `MAJOR.MINOR.PATCH` (Semantic Versioning; before 1.0 a minor version may
    /// change the library API).
    public static let current = "0.10.0"
}
