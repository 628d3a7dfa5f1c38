import Foundation
import PoseCore
#if canImport(Glibc)
import Glibc
#endif

/// Refuses a run in which two of its files are one file, before anything is read or written:
/// `--json out --overlay out` would keep only one of them, and `--json clip.y4m clip.y4m` would
/// replace the video with its own poses.
///
/// Two names are one file when they lead to the same device and inode (hard links, symbolic
/// links, `./x` and `x`), or, for outputs not created yet, to the same absolute path once links
/// are followed. Standard output counts as one file too (`-`, `/dev/stdout`). Devices, FIFOs and
/// sockets may be shared (`--json /dev/null --overlay /dev/null`), and so may inputs among
/// themselves; an output may share with nothing.
///
///     try SameFileCheck.refuse(inputs: ["clip.y4m"], outputs: [("--json", "clip.y4m")])   // exit 2
public enum SameFileCheck {
    /// What a name leads to.
    public enum Identity: Hashable {
        case standardOutput
        case existing(device: UInt64, inode: UInt64)
        case new(path: String)
    }

    /// Throws a usage error (exit 2) naming both when any output is the same file as an input or
    /// another output. `outputs` pairs each path with the option that gave it.
    public static func refuse(inputs: [String], outputs: [(option: String, path: String)]) throws {
        var claimed: [Identity: (what: String, isOutput: Bool)] = [:]
        func claim(_ identity: Identity?, _ what: String, isOutput: Bool) throws {
            guard let identity else { return }
            if let earlier = claimed[identity], earlier.isOutput || isOutput {
                throw SameFileError(message: "\(earlier.what) and \(what) are the same file; nothing was read or written, as writing one would destroy the other")
            }
            if claimed[identity] == nil { claimed[identity] = (what, isOutput) }
        }
        for input in inputs { try claim(identity(ofInput: input), "input \(input)", isOutput: false) }
        for output in outputs { try claim(identity(ofOutput: output.path), "\(output.option) \(output.path)", isOutput: true) }
    }

    /// An existing regular file's identity; nil for standard input, what is not there (reading
    /// it fails anyway) and what may be shared.
    public static func identity(ofInput path: String) -> Identity? {
        guard path != "-" else { return nil }
        var info = stat()
        guard FileName.status(path, &info), (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return .existing(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Where an output goes: standard output, an existing regular file, or the absolute path
    /// a new one will have; nil for what may be shared (standard error, devices, FIFOs).
    public static func identity(ofOutput path: String) -> Identity? {
        if let stream = OutputFile.standardStream(named: path) { return stream == 1 ? .standardOutput : nil }
        var info = stat()
        if FileName.status(path, &info) {
            return (info.st_mode & S_IFMT) == S_IFREG ? .existing(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) : nil
        }
        let target = (try? OutputFile.resolvingSymbolicLinks(path)) ?? path
        let directory = OutputFile.directory(of: target)
        let name = target.split(separator: "/").last.map(String.init) ?? target
        guard let resolved = realpath(directory, nil) else { return .new(path: target) }
        defer { free(resolved) }
        let absolute = String(cString: resolved)
        return .new(path: (absolute.hasSuffix("/") ? absolute : absolute + "/") + name)
    }
}

/// Two files of one run are one file (``SameFileCheck/refuse(inputs:outputs:)``): a usage error,
/// one line.
public struct SameFileError: LocalizedError, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    public var errorDescription: String? { message }
}
