import Foundation
import PoseCore

/// A directory given as an input means every image or video directly in it: PNM, Y4M and the
/// formats read through ffmpeg (`MediaFormat`), by extension, in name order; hidden files and
/// anything that is not a regular file (subdirectories, FIFOs, devices, sockets) are skipped.
enum InputDirectory {
    /// `inputs` with each directory replaced by its media files; a directory without any is an error.
    static func expand(_ inputs: [String]) throws -> [String] {
        try inputs.flatMap { input -> [String] in
            var isDirectory: ObjCBool = false
            guard input != "-", FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory),
                  isDirectory.boolValue else { return [input] }
            return try files(in: input)
        }
    }

    /// The media files directly in `directory`, sorted by name (byte order).
    static func files(in directory: String) throws -> [String] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw CLIError("\(directory): cannot list the directory: \(CLIError.describe(error))")
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        let files = names
            .filter { !$0.hasPrefix(".") && MediaFormat.isMediaFileName($0) }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .map { prefix + $0 }
            .filter(RegularFile.exists)   // a FIFO named x.y4m would wait for a writer forever
        if files.isEmpty {
            throw CLIError("\(directory): no images or videos in this directory (PNM, Y4M, or through ffmpeg: \(MediaFormat.byExtension.keys.sorted().joined(separator: ", ")))")
        }
        return files
    }
}
