/// AD type codes this module interprets (Bluetooth Assigned Numbers §2.3 "Common Data Types", referenced
/// by Core Vol 3 Part C §11 and the Core Specification Supplement Part A). Every other code is kept as an
/// `ADStructure.unknown` element.
public enum ADType {
  public static let flags: UInt8 = 0x01
  public static let incompleteUUIDs16: UInt8 = 0x02
  public static let completeUUIDs16: UInt8 = 0x03
  public static let incompleteUUIDs32: UInt8 = 0x04
  public static let completeUUIDs32: UInt8 = 0x05
  public static let incompleteUUIDs128: UInt8 = 0x06
  public static let completeUUIDs128: UInt8 = 0x07
  public static let shortenedLocalName: UInt8 = 0x08
  public static let completeLocalName: UInt8 = 0x09
  public static let txPowerLevel: UInt8 = 0x0A
  public static let serviceData16: UInt8 = 0x16
  public static let serviceData32: UInt8 = 0x20
  public static let serviceData128: UInt8 = 0x21
  public static let manufacturerData: UInt8 = 0xFF
}

/// Company identifiers (Bluetooth Assigned Numbers, "Company Identifiers") and 16-bit service UUIDs that
/// the frame decoders look for (docs/protocols/beacon-formats.md §1, §2; docs/protocols/kbeacon.md §10 constants).
public enum BeaconConstants {
  /// Apple, carried on air as `4C 00`.
  public static let appleCompanyID: UInt16 = 0x004C
  /// KKM, carried on air as `53 0A`.
  public static let kkmCompanyID: UInt16 = 0x0A53
  /// Eddystone service UUID (`AA FE` on air).
  public static let eddystoneService: UInt16 = 0xFEAA
  /// KKM extension service data in the scan response (`80 20` on air).
  public static let kkmScanResponseService: UInt16 = 0x2080
}
