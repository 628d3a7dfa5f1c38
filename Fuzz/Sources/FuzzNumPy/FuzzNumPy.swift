import Tensor

/// libFuzzer entry point: decode `data` as a `.npy` array (`NumPyArray.decode`: the exact header
/// parser, every size checked against the bytes there). A refusal must be a `NumPyError`; an
/// array read, encoded again and decoded, must give the same shape and the same bits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNumPy(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let tensor = try NumPyArray.decode(bytes)
        precondition(tensor.count * 4 <= bytes.count, "\(tensor.count) values from \(bytes.count) bytes")
        let again = try NumPyArray.decode(NumPyArray.encode(tensor))
        precondition(again.shape == tensor.shape, "round trip changed the shape \(tensor.shape) to \(again.shape)")
        let same = tensor.withUnsafeBufferPointer { a in again.withUnsafeBufferPointer { b in
            zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern } } }
        precondition(same, "round trip changed the values")
    } catch is NumPyError {
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
