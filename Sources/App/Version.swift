/// PoseKit's version: what `posekit --version` prints. The newest heading of CHANGELOG.md names
/// the same version (a test checks), and a release commit is tagged with it.
enum PoseKitVersion {
    static let current = "0.9.0"
}
