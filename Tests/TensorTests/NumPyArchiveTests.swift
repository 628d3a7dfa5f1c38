import Foundation
import Testing
import Tensor

/// The `.npz` writer: the ZIP CRC-32's standard check value, and an archive read back by its
/// headers (local entries, central directory, end record) member for member.
struct NumPyArchiveTests {
    @Test func crcIsZIPs() {
        #expect(NumPyArchive.crc32(Array("123456789".utf8)) == 0xCBF4_3926)   // the CRC-32 check value
        #expect(NumPyArchive.crc32([]) == 0)
    }

    @Test func membersAreStoredWhole() throws {
        let a = [UInt8](NumPyArray.encode(try Tensor(zeros: [2, 3])))
        let b = Array("not even npy".utf8)
        let zip = NumPyArchive.encode([("a.npy", a), ("b.npy", b)])
        func u16(_ at: Int) -> Int { Int(zip[at]) | Int(zip[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var offset = 0, members: [(String, [UInt8], Int)] = []
        while u32(offset) == 0x0403_4B50 {
            let size = u32(offset + 18), nameLength = u16(offset + 26)
            let name = String(decoding: zip[(offset + 30)..<(offset + 30 + nameLength)], as: UTF8.self)
            let start = offset + 30 + nameLength + u16(offset + 28)
            members.append((name, Array(zip[start..<(start + size)]), u32(offset + 14)))
            offset = start + size
        }
        #expect(members.map(\.0) == ["a.npy", "b.npy"])
        #expect(members[0].1 == a && members[1].1 == b)
        #expect(members.map(\.2) == [Int(NumPyArchive.crc32(a)), Int(NumPyArchive.crc32(b))])
        // The central directory follows, two entries; the end record points at it.
        #expect(u32(offset) == 0x0201_4B50)
        let end = zip.count - 22
        #expect(u32(end) == 0x0605_4B50 && u16(end + 10) == 2 && u32(end + 16) == offset)
    }
}
