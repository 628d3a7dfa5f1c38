import Foundation
import PoseKit
#if canImport(Glibc)
import Glibc
#endif

/// How `posekit run` reads its input tensor and writes its outputs: the input's dtype and
/// non-finite values said in a line, one `.npy` per output named by its tensor (or one `.npz`),
/// each written through the safe-file rule (``/FrameIO/OutputFile``: a full disk leaves the
/// previous file, never a cut one), a `run.json` that lists what the run wrote, and a summary line
/// per output on standard output.
///
/// **The output directory** is new, empty, or holds an earlier `posekit run`'s outputs (those its
/// `run.json` lists), which this run replaces: earlier outputs this run does not write are removed
/// once the new ones are in place, so a directory never mixes two runs. Any other `.npy` or
/// `.npz` there is refused before the model runs (the input tensor itself may lie there).
public enum RunOutputs {
    /// The dtypes the input may have: float32, and float64 narrowed to float32.
    public static let acceptedTypes = "float32 ('<f4'), or float64 ('<f8', narrowed to float32)"

    /// The record of a run in its output directory.
    public static let recordName = "run.json"

    /// One output to write: its index in the model's order, tensor name and values.
    public struct Output {
        public let index: Int
        public let name: String
        public let tensor: Tensor
        public let shape: [Int]

        /// Output `index` of the model, tensor `name`, its values `tensor` written with `shape`.
        public init(index: Int, name: String, tensor: Tensor, shape: [Int]) {
            (self.index, self.name, self.tensor, self.shape) = (index, name, tensor, shape)
        }
    }

    // MARK: The input

    /// Reads the input tensor at `path`; a float64 file and non-finite values each get a line on
    /// standard error (the run goes on: they are the user's to judge).
    public static func readInput(_ path: String) throws -> Tensor {
        let (tensor, dtype) = try ModelFileError.reading(path) { try NumPyArray.readWithType(contentsOf: URL(fileURLWithPath: path)) }
        if dtype == "<f8" {
            printToStandardError("posekit: note: \(PrintableText.make(path)) is float64; its values are narrowed to float32, the model's type")
        }
        let nonFinite = tensor.withUnsafeBufferPointer { values in values.reduce(0) { $0 + ($1.isFinite ? 0 : 1) } }
        if nonFinite > 0 {
            printToStandardError("posekit: warning: \(PrintableText.make(path)): \(nonFinite) of \(tensor.count) input values are NaN or infinite; the outputs may be too")
        }
        return tensor
    }

    // MARK: Names

    /// File names for `outputs`: the tensor name made a file name (letters, digits, `.`, `-`,
    /// `_`; anything else `_`), `output_<index>` when that is empty, reserved, or shared (ignoring
    /// case) with another output.
    public static func fileNames(_ outputs: [(index: Int, name: String)], ext: String) -> [String] {
        func stem(_ name: String) -> String {
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
            let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" }).trimmingCharacters(in: CharacterSet(charactersIn: "."))
            return cleaned.count > 200 ? "" : cleaned
        }
        let stems = outputs.map { stem($0.name) }
        var counts: [String: Int] = [:]
        for s in stems { counts[s.lowercased(), default: 0] += 1 }
        let reserved: Set<String> = ["run", "outputs"]
        return zip(outputs, stems).map { output, stem in
            let usable = !stem.isEmpty && counts[stem.lowercased()] == 1 && !reserved.contains(stem.lowercased())
            return (usable ? stem : "output_\(output.index)") + "." + ext
        }
    }

    // MARK: The directory

    /// What `directory` holds from earlier runs: the files its `run.json` lists (empty when none).
    /// Throws, before anything runs, when it holds `.npy` or `.npz` files no earlier run wrote
    /// (other than `input`).
    public static func earlierOutputs(in directory: String, input: String) throws -> [String] {
        var info = stat()
        guard stat(directory, &info) == 0 else { return [] }   // created when written
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw ModelFileError("--output \(PrintableText.make(directory)): not a directory") }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let listed = Set(record(in: directory))
        let inputName = URL(fileURLWithPath: input).standardizedFileURL.resolvingSymlinksInPath().path
        let foreign = entries.filter { name in
            let ext = URL(fileURLWithPath: name).pathExtension.lowercased()
            guard ext == "npy" || ext == "npz", !listed.contains(name) else { return false }
            let path = URL(fileURLWithPath: directory).appendingPathComponent(name).standardizedFileURL.resolvingSymlinksInPath().path
            return path != inputName
        }.sorted()
        if !foreign.isEmpty {
            let shown = foreign.prefix(5).map(PrintableText.make).joined(separator: ", ") + (foreign.count > 5 ? ", ..." : "")
            throw ModelFileError("--output \(PrintableText.make(directory)) holds \(shown), which no earlier `posekit run` wrote there (its \(recordName) does not list \(foreign.count == 1 ? "it" : "them")); give a new or empty directory, or remove \(foreign.count == 1 ? "it" : "them")")
        }
        return entries.filter { listed.contains($0) }
    }

    /// The files an earlier run's `run.json` in `directory` lists (none when it is missing or unreadable).
    private static func record(in directory: String) -> [String] {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(recordName)
        guard let data = try? Data(contentsOf: path), data.count < 1 << 20,
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let outputs = object["outputs"] as? [[String: Any]] else { return [] }
        return outputs.compactMap { $0["file"] as? String }.filter { !$0.contains("/") && $0 != recordName }
    }

    // MARK: Writing

    /// Writes `outputs` into `directory` (one `.npy` each, or one `outputs.npz` with `npz`) and
    /// `run.json`, all committed together; then removes `earlier` outputs not written again, and
    /// prints a summary line per output.
    public static func write(_ outputs: [Output], to directory: String, npz: Bool, model: String, input: String, earlier: [String]) throws {
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw ModelFileError("cannot create the output directory \(PrintableText.make(directory)): \(PlainErrorMessage.describe(error))")
        }
        let names = fileNames(outputs.map { ($0.index, $0.name) }, ext: "npy")
        let encoded = outputs.map { NumPyArray.encode($0.tensor, shape: $0.shape) }
        func path(_ name: String) -> String { URL(fileURLWithPath: directory).appendingPathComponent(name).path }
        var files: [(name: String, bytes: [UInt8])]
        if npz {
            files = [("outputs.npz", NumPyArchive.encode(zip(names, encoded).map { ($0, [UInt8]($1)) }))]
        } else {
            files = zip(names, encoded).map { ($0, [UInt8]($1)) }
        }
        let record = runRecord(outputs, names: names, archive: npz ? "outputs.npz" : nil, model: model, input: input)
        files.append((recordName, Array(record.utf8)))
        // All or nothing: every file is written to its temporary and flushed before any is
        // committed (a full disk fails the run with every earlier file as it was).
        var opened: [OutputFile] = []
        do {
            for file in files {
                let output = try OutputFile(path: path(file.name))
                opened.append(output)
                try output.sink.write(file.bytes)
                try output.sink.flush()
            }
            for output in opened { try output.commit() }
        } catch {
            for output in opened { output.discard() }
            throw ModelFileError(PlainErrorMessage.describe(error))
        }
        let written = Set(files.map(\.name))
        for name in earlier where !written.contains(name) { _ = unlink(path(name)) }
        for (output, name) in zip(outputs, names) {
            print(summary(output, file: npz ? "outputs.npz:\(name)" : path(name)))
        }
    }

    /// `run.json`: the model, the input and each output's index, tensor name, shape and file.
    public static func runRecord(_ outputs: [Output], names: [String], archive: String?, model: String, input: String) -> String {
        func quoted(_ text: String) -> String {
            let data = try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
            return data.map { String(decoding: $0.dropFirst().dropLast(), as: UTF8.self) } ?? "\"\""
        }
        let lines = zip(outputs, names).map { output, name in
            "    {\"index\": \(output.index), \"name\": \(quoted(output.name)), \"shape\": [\(output.shape.map(String.init).joined(separator: ", "))], \"file\": \(quoted(archive ?? name))"
                + (archive == nil ? "" : ", \"member\": \(quoted(name))") + "}"
        }
        return "{\"model\": \(quoted(model)), \"input\": \(quoted(input)), \"outputs\": [\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }

    /// `0  Identity  [1, 63]  min -0.2134  max 0.9812  mean 0.1201  out/Identity.npy`, with the
    /// count of non-finite values when there are any (min, max and mean are of the finite ones).
    public static func summary(_ output: Output, file: String) -> String {
        var low = Float.infinity, high = -Float.infinity, sum = 0.0, finite = 0
        output.tensor.withUnsafeBufferPointer { values in
            for v in values where v.isFinite {
                low = min(low, v); high = max(high, v); sum += Double(v); finite += 1
            }
        }
        let nonFinite = output.tensor.count - finite
        func number(_ x: Double) -> String { String(format: "%.6g", x) }
        let stats = finite == 0 ? "no finite value"
            : "min \(number(Double(low)))  max \(number(Double(high)))  mean \(number(sum / Double(finite)))"
        let shape = "[" + output.shape.map(String.init).joined(separator: ", ") + "]"
        return "\(output.index)  \(PrintableText.make(output.name))  \(shape)  \(stats)"
            + (nonFinite > 0 ? "  non-finite \(nonFinite)" : "") + "  \(PrintableText.make(file))"
    }
}
