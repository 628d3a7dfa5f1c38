import ActionNet

/// libFuzzer entry point: read `data` as a Create ML window file (`.npy` through Tensor's
/// `NumPyArray`, or JSON `[T][3][18]` through the hand-written reader). A refusal must be a
/// `CoreMLModelError`; a window read must be `[T, 3, 18]` of finite values, T · 54 of them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWindow(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let (shape, values) = try PoseWindowFile.read(bytes)
        precondition(shape.count == 3 && shape[0] >= 1 && shape[1] == 3 && shape[2] == 18, "shape \(shape)")
        precondition(values.count == shape[0] * 54, "\(values.count) values for \(shape)")
        precondition(values.allSatisfy(\.isFinite), "a non-finite value was accepted")
    } catch is CoreMLModelError {
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
