/// The SoftDevice information structure inside a SoftDevice image — where the bootloader itself reads the
/// FWID it checks `sd_req` against (docs/protocols/nordic-dfu.md §1.4 item 5; nRF5 SDK `nrf_sdm.h`: `SD_INFO_STRUCT_OFFSET`
/// 0x2000 from the SoftDevice start, `SD_MAGIC_NUMBER` 0x51B1E5DB at +4, `SD_FWID_OFFSET` +0x0C, u16).
/// A package's `.bin` starts at the SoftDevice start (nrfutil strips the 4 KiB MBR: `nrfhex.py`
/// `_removembr`); old S132 variants whose MBR ends at 0x3000 have the structure 0x1000 in (`nrfhex.py`
/// `get_softdevice_variant`), so both places are looked at.
public enum SoftDeviceInfo {
  public static let magic: UInt32 = 0x51B1_E5DB
  static let structureOffsets = [0x2000, 0x1000]

  /// The FWID of the SoftDevice at the start of `firmware` (SD or SD+BL image), or nil when no
  /// information structure is found there.
  public static func firmwareID(in firmware: [UInt8]) -> UInt32? {
    for base in structureOffsets where firmware.count >= base + 0x0E {
      guard LittleEndian.uint32(firmware, at: base + 4) == magic else { continue }
      return UInt32(firmware[base + 0x0C]) | UInt32(firmware[base + 0x0D]) << 8
    }
    return nil
  }
}
