import BeaconCore
import Foundation
import JSON

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
/// entry this version cannot read, is refused whole (the caller then starts without a cache), with a
/// `JSONDiagnostic` naming the file, line, column and JSON path.
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
    return Array(try JSONValueEncoder().text(File(version: version, devices: devices)).utf8)
  }

  /// The entries of a cache file; any problem is a `JSONDiagnostic` naming `file`, line, column and path.
  public static func decode(_ bytes: [UInt8], file: String = "gatt-cache.json") throws(JSONDiagnostic)
    -> [GATTCacheKey: GATTCacheEntry]
  {
    let decoder = JSONFileDecoder(file: file)
    let root = try decoder.parse(bytes)
    let file = try decoder.decode(File.self, from: root)
    guard file.version == version else {
      throw decoder.problem(
        at: JSONPath.root.appending("version"), in: root, "version \(file.version) is not read by this version",
        allowed: "\(version)")
    }
    var entries: [GATTCacheKey: GATTCacheEntry] = [:]
    for (name, device) in file.devices {
      let path = JSONPath.root.appending("devices").appending(name)
      guard let key = GATTCacheKey(name) else {
        throw decoder.problem(at: path, in: root, "not ADDRESS/public or ADDRESS/random")
      }
      var hash: [UInt8]? = nil
      if let text = device.databaseHash {
        guard let bytes = Hex.decode(text), bytes.count == 16 else {
          throw decoder.problem(at: path.appending("databaseHash"), in: root, "not 32 hex digits")
        }
        hash = bytes
      }
      entries[key] = GATTCacheEntry(
        key: key, databaseHash: hash, services: device.services, serviceChangedHandle: device.serviceChangedHandle)
    }
    return entries
  }
}

extension GATTCacheFileFormat.File {
  /// The synthesized reading, after refusing a key it does not know (a misspelt key is named with the closest
  /// known one).
  init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(known: ["version", "devices"])
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      version: try c.decode(Int.self, forKey: .version),
      devices: try c.decode([String: GATTCacheFileFormat.Device].self, forKey: .devices))
  }
}
