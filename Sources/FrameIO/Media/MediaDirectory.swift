import Foundation
import PoseCore

/// A directory given as an input means every image or video directly in it: PNM, Y4M and the
/// formats read through ffmpeg (`MediaFormat`), by extension, in name order; hidden files and
/// anything that is not a regular file (subdirectories, FIFOs, devices, sockets) are skipped.
public enum MediaDirectory {
    /// `inputs` with each directory replaced by its media files; a directory without any is an error.
    public static func expand(_ inputs: [String]) throws -> [String] {
        try inputs.flatMap { input -> [String] in
            var info = stat()
            guard input != "-", FileName.status(input, &info), (info.st_mode & S_IFMT) == S_IFDIR else { return [input] }
            return try files(in: input)
        }
    }

    /// Throws the error opening `input` would (`PATH: open: No such file or directory`) when it
    /// cannot even be found, before the frame pipeline is built for it: that pipeline's workers
    /// (one network's activations per frame in flight) cost milliseconds and megabytes per input,
    /// which a long list of missing paths would otherwise pay for each.
    public static func requireFound(_ input: String) throws {
        var info = stat()
        guard input == "-" || FileName.status(input, &info) else {
            throw FrameIOError.naming(input, FrameIOError.system(operation: "open \(input)", errno: errno))
        }
    }

    /// The media files directly in `directory`, sorted by name (byte order); names that are not
    /// UTF-8 are kept byte for byte (`FileName`).
    public static func files(in directory: String) throws -> [String] {
        guard let names = FileName.contentsOfDirectory(directory) else {
            throw FrameIOError.invalidArgument("\(directory): cannot list the directory: \(String(cString: strerror(errno)))")
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        let files = names
            .filter { !$0.hasPrefix(".") && MediaFormat.isMediaFileName($0) }
            .sorted { FileName.bytes(of: $0).lexicographicallyPrecedes(FileName.bytes(of: $1)) }
            .map { prefix + $0 }
            .filter(RegularFile.exists)   // a FIFO named x.y4m would wait for a writer forever
        if files.isEmpty {
            throw FrameIOError.invalidArgument("\(directory): no images or videos in this directory (PNM, Y4M, or through ffmpeg: \(MediaFormat.byExtension.keys.sorted().joined(separator: ", ")))")
        }
        return files
    }
}
