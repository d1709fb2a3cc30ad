/// Writes a zip archive with every entry stored (method 0) — enough to produce DFU packages for the
/// simulator, tests (including hostile ones: `..` names, truncations) and the benchmark without a
/// generator. Layout per PKWARE APPNOTE 4.3: local headers + data, central directory, end record.
public enum StoredZipWriter {
  public static func archive(_ files: [(name: String, bytes: [UInt8])]) -> [UInt8] {
    var out: [UInt8] = []
    var central: [UInt8] = []
    for file in files {
      let name = Array(file.name.utf8)
      let crc = CRC32.checksum(file.bytes)
      let offset = UInt32(out.count)
      // local file header: signature, version 2.0, flags 0, method 0 (stored), time/date 0, crc, sizes, name
      out += le32(0x0403_4B50) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21)
      out += le32(crc) + le32(UInt32(file.bytes.count)) + le32(UInt32(file.bytes.count))
      out += le16(UInt16(name.count)) + le16(0) + name + file.bytes
      // central directory header: also "made by", comment/disk/attributes fields and the local offset
      central += le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21)
      central += le32(crc) + le32(UInt32(file.bytes.count)) + le32(UInt32(file.bytes.count))
      central += le16(UInt16(name.count)) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(offset) + name
    }
    let centralOffset = UInt32(out.count)
    out += central
    // end of central directory: disk numbers 0, entry counts, directory size and offset, no comment
    out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(files.count)) + le16(UInt16(files.count))
    out += le32(UInt32(central.count)) + le32(centralOffset) + le16(0)
    return out
  }

  private static func le16(_ v: UInt16) -> [UInt8] { LittleEndian.bytes(v) }
  private static func le32(_ v: UInt32) -> [UInt8] { LittleEndian.bytes(v) }
}
