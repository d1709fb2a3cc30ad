import BeaconCore
import Foundation

/// The bytes of `gatt-cache.json` (`GATTCacheFile`), version 1, keys sorted:
///
/// ```json
/// {"devices": {"AA:BB:CC:DD:EE:FF/random": {
///    "databaseHash": "32 hex digits, as the device sent them (absent: the device has none)",
///    "serviceChangedHandle": 8,
///    "services": [{"uuid": "FEA0", "startHandle": 22, "endHandle": 29, "isPrimary": true, "includes": [],
///                  "characteristics": [{"uuid": "FEA1", "properties": 12, "declarationHandle": 23,
///                                       "valueHandle": 24, "endHandle": 24, "descriptors": []}, …]}]}},
///  "version": 1}
/// ```
///
/// `services` are `GATTService` values as discovery found them. A file of another version, or with an
/// entry this version cannot read, is refused whole (the caller then starts without a cache).
public enum GATTCacheFileFormat {
  public static let version = 1

  struct File: Codable {
    var version: Int
    var devices: [String: Device]
  }

  struct Device: Codable {
    var databaseHash: String?
    var serviceChangedHandle: UInt16?
    var services: [GATTService]
  }

  public static func encode(_ entries: [GATTCacheKey: GATTCacheEntry]) throws -> [UInt8] {
    var devices: [String: Device] = [:]
    for (key, entry) in entries {
      devices[key.description] = Device(
        databaseHash: entry.databaseHash.map { Hex.encode($0) }, serviceChangedHandle: entry.serviceChangedHandle,
        services: entry.services)
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return Array(try encoder.encode(File(version: version, devices: devices)))
  }

  public static func decode(_ bytes: [UInt8]) throws -> [GATTCacheKey: GATTCacheEntry] {
    let file: File
    do {
      file = try JSONDecoder().decode(File.self, from: Data(bytes))
    } catch {
      throw GATTCacheFileError("not a GATT cache file (\(bytes.count) bytes)")
    }
    guard file.version == version else {
      throw GATTCacheFileError("version \(file.version), this version reads \(version)")
    }
    var entries: [GATTCacheKey: GATTCacheEntry] = [:]
    for (name, device) in file.devices {
      guard let key = GATTCacheKey(name) else {
        throw GATTCacheFileError("devices.\(name): not ADDRESS/public or ADDRESS/random")
      }
      var hash: [UInt8]? = nil
      if let text = device.databaseHash {
        guard let bytes = Hex.decode(text), bytes.count == 16 else {
          throw GATTCacheFileError("devices.\(name).databaseHash: not 32 hex digits")
        }
        hash = bytes
      }
      entries[key] = GATTCacheEntry(
        key: key, databaseHash: hash, services: device.services, serviceChangedHandle: device.serviceChangedHandle)
    }
    return entries
  }
}
