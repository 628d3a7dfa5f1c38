import Testing
@testable import FlatBuffers

/// The reader against buffers made by hand with ``FlatBufferBuilder``.
@Suite struct FlatBufferReaderTests {
    @Test func readsScalarsDefaultsStringsVectorsAndUnions() throws {
        let bytes = FlatBufferBuilder.build(root: [
            0: .int32(-7), 2: .string("héllo"), 3: .int32s([1, -2, 3]),
            4: .uint8(5), 5: .table([0: .uint16s([9, 65535])]), 6: .tables([[0: .bool(true)], [:]]), 7: .uint64(1 << 40),
        ], identifier: "TEST")
        let buffer = FlatBuffer(bytes: bytes)
        #expect(buffer.fileIdentifier == "TEST")
        let root = try buffer.root()
        #expect(try root.scalar(0, default: Int32(0)) == -7)
        #expect(try root.scalar(1, default: Int32(42)) == 42)            // absent: the default
        #expect(try root.scalar(20, default: UInt8(3)) == 3)             // beyond the vtable: the default
        #expect(try root.string(2) == "héllo")
        #expect(try root.vector(3, elementSize: 4)?.scalars(Int32.self) == [1, -2, 3])
        let union = try root.union(4)
        #expect(union.type == 5)
        #expect(try union.table?.vector(0, elementSize: 2)?.scalars(UInt16.self) == [9, 65535])
        let tables = try #require(try root.vector(6, elementSize: 4))
        #expect(tables.count == 2)
        #expect(try tables.table(at: 0).bool(0, default: false) == true)
        #expect(try tables.table(at: 1).bool(0, default: false) == false)
        #expect(try root.scalar(7, default: UInt64(0)) == 1 << 40)
        #expect(try root.string(1) == nil)
        #expect(throws: FlatBufferError.self) { try tables.table(at: 2) }
    }

    @Test func nestingIsBounded() throws {
        var table: [Int: FBField] = [1: .int32(1)]
        for _ in 0..<40 { table = [0: .table(table)] }
        var current: FlatTable? = try FlatBuffer(bytes: FlatBufferBuilder.build(root: table)).root()
        var levels = 0
        #expect(throws: FlatBufferError.self) {
            while let t = current { current = try t.table(0); levels += 1 }
        }
        #expect(levels == FlatBuffer.maxDepth)
    }

    @Test func malformedTablesNameTheirOffset() throws {
        var bytes = FlatBufferBuilder.build(root: [0: .int32(1)])
        let root = try FlatBuffer(bytes: bytes).root()
        // vtable size odd.
        bytes[root.vtable] = 5
        #expect(throws: FlatBufferError(offset: root.vtable, "vtable size 5 is not an even number ≥ 4")) { try FlatBuffer(bytes: bytes).root() }
        // A field that lies past its table's end.
        bytes[root.vtable] = 6
        bytes[root.vtable + 4] = 200
        #expect(throws: FlatBufferError.self) { try FlatBuffer(bytes: bytes).root().scalar(0, default: Int32(0)) }
    }
}
