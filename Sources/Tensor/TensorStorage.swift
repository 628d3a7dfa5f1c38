/// A contiguous, 64-byte-aligned block of `Float`s that one or more ``Tensor`` values share.
///
/// 64 bytes is a cache line and one AVX-512 register, so every tensor that starts at element
/// offset 0 can be read with aligned vector loads. The storage is a class so that views
/// (reshapes, slices) share memory without copying; the buffer is freed with the last reference.
public final class TensorStorage: @unchecked Sendable {
    /// Alignment of every allocation, in bytes.
    public static let alignment = 64

    /// The whole buffer. Elements are not initialized to any particular value unless the
    /// allocating initializer says so.
    public let buffer: UnsafeMutableBufferPointer<Float>

    /// Allocates room for `count` floats, all set to zero.
    public init(count: Int) {
        precondition(count >= 0, "TensorStorage: negative element count \(count)")
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: max(count, 1) * MemoryLayout<Float>.stride,
            alignment: TensorStorage.alignment)
        let typed = raw.bindMemory(to: Float.self, capacity: max(count, 1))
        typed.initialize(repeating: 0, count: max(count, 1))
        buffer = UnsafeMutableBufferPointer(start: typed, count: count)
    }

    /// Allocates room for `count` floats left uninitialized, for a caller that writes every one
    /// before anything reads it (packing weights).
    init(uninitializedCount count: Int) {
        precondition(count >= 0, "TensorStorage: negative element count \(count)")
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: max(count, 1) * MemoryLayout<Float>.stride,
            alignment: TensorStorage.alignment)
        buffer = UnsafeMutableBufferPointer(start: raw.bindMemory(to: Float.self, capacity: max(count, 1)), count: count)
    }

    deinit {
        UnsafeMutableRawPointer(buffer.baseAddress!).deallocate()
    }
}
