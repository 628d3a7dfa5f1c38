#if canImport(Glibc)
import Glibc
#endif

/// Descriptors 0, 1 and 2 always exist while posekit runs.
///
/// A parent may start posekit with one of them closed (`posekit pose - <&-`). The next `open` or
/// `pipe` would then get that number, and an internal pipe or a weight file would become
/// "standard input" or "standard output": a read from `-` would wait on our own pipe forever, a
/// JSON line could land in a weight file. Like coreutils, posekit first opens /dev/null on every
/// closed one, so `-` reads as empty and output to a closed stream goes nowhere.
enum StandardDescriptors {
    /// Opens /dev/null on each of 0, 1, 2 that is closed; call first thing in `main`.
    static func openClosedOnes() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
            // open returns the lowest free number, which is this one: the lower ones are open.
            let opened = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
            if opened >= 0 && opened != descriptor {
                _ = dup2(opened, descriptor)
                _ = close(opened)
            }
        }
    }
}
