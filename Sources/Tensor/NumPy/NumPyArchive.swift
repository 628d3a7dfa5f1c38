/// A NumPy `.npz` archive: a ZIP file of `.npy` members, stored (not compressed), as
/// `numpy.savez` writes it; `numpy.load(path)` gives each member by its name without `.npy`.
///
///     let archive = NumPyArchive.encode([("Identity.npy", [UInt8](NumPyArray.encode(tensor)))])
///
/// The layout (PKWARE APPNOTE 4.3): per member a local header (signature `PK\3\4`, version 2.0,
/// method 0 = stored, CRC-32, sizes, name) and its bytes; then the central directory (one entry
/// per member, `PK\1\2`, with its local header's offset) and the end record (`PK\5\6`). Sizes and
/// offsets are 32-bit: an archive is refused past 4 GiB (ZIP64 is not written).
public enum NumPyArchive {
    /// The archive of `members` (name, `.npy` bytes), in order.
    public static func encode(_ members: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func u16(_ v: Int, into a: inout [UInt8]) { a += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        func u32(_ v: Int, into a: inout [UInt8]) { for shift in stride(from: 0, to: 32, by: 8) { a.append(UInt8((v >> shift) & 0xFF)) } }
        for member in members {
            let name = Array(member.name.utf8)
            let crc = Int(crc32(member.bytes))
            let offset = out.count
            precondition(offset + member.bytes.count < Int(UInt32.max), "NumPyArchive: past 4 GiB")
            // Local header: signature, version needed, flags, method, time, date, CRC, sizes, name length, extra length.
            u32(0x0403_4B50, into: &out); u16(20, into: &out); u16(0, into: &out); u16(0, into: &out)
            u16(0, into: &out); u16(0x21, into: &out)   // 1980-01-01 00:00: no clock in the bytes
            u32(crc, into: &out); u32(member.bytes.count, into: &out); u32(member.bytes.count, into: &out)
            u16(name.count, into: &out); u16(0, into: &out)
            out += name
            out += member.bytes
            // Central directory entry: also version made by, comment/disk/attributes, the offset.
            u32(0x0201_4B50, into: &central); u16(20, into: &central); u16(20, into: &central); u16(0, into: &central); u16(0, into: &central)
            u16(0, into: &central); u16(0x21, into: &central)
            u32(crc, into: &central); u32(member.bytes.count, into: &central); u32(member.bytes.count, into: &central)
            u16(name.count, into: &central); u16(0, into: &central); u16(0, into: &central); u16(0, into: &central); u16(0, into: &central)
            u32(0, into: &central); u32(offset, into: &central)
            central += name
        }
        let centralOffset = out.count
        out += central
        // End of central directory: disk numbers, entry counts, directory size and offset, comment length.
        u32(0x0605_4B50, into: &out); u16(0, into: &out); u16(0, into: &out)
        u16(members.count, into: &out); u16(members.count, into: &out)
        u32(central.count, into: &out); u32(centralOffset, into: &out); u16(0, into: &out)
        return out
    }

    /// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as ZIP checks members.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
