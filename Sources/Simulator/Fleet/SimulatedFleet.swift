import BeaconCore
import Foundation
import JSON

/// A virtual fleet: the devices `--adapter sim[:FILE]` serves. Read from a fleet file:
///
/// ```json
/// {
///   "version": 1,
///   "devices": [
///     { "address": "C3:00:00:00:00:01", "kind": "kbeaconPro", "name": "KBPro_000001", "intervalMs": 500,
///       "rssi": { "mean": -62, "spread": 8, "seed": 1 },
///       "sensor": { "batteryMillivolts": 3012, "temperature": 21.5, "humidity": 40.25 },
///       "system": { "model": 12, "batteryPercent": 95, "firmware": "5.12" } },
///     { "address": "C3:00:00:00:00:02", "kind": "iBeacon", "connectable": false,
///       "iBeacon": { "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 7, "measuredPower": -59 } }
///   ]
/// }
/// ```
///
/// Rules: `version` must be 1; every object rejects keys it does not know (the error names the place, the
/// JSON path and the closest known key: `fleet.json:1:80: $.devices[1].iBeacon.majr: unknown key "majr" — did
/// you mean "major"?`); addresses are unique. Each device entry is `kind` plus optional sections
/// (see `SimulatedDevice`); later sections (KBeacon configuration, DFU target, faults) are added as new
/// optional keys of the device entry. A full sample: `Tests/SimulatorTests/Fixtures/sample-fleet.json`.
public struct SimulatedFleet: Sendable, Hashable, Codable {
  /// The fleet file format version this build reads.
  public static let currentVersion = 1

  public var version: Int
  public var devices: [SimulatedDevice]
  /// Several gateways on one site: what each gateway hears, and how loud
  /// (`SimulatedFleet+Gateways`). Absent: one radio hears the whole fleet.
  public var gateways: GatewayViews?
  /// The simulated controller (`SimulatedAdapterSection`): how many links it holds. Absent: 5.
  public var adapter: SimulatedAdapterSection?

  public init(
    version: Int = SimulatedFleet.currentVersion, devices: [SimulatedDevice], gateways: GatewayViews? = nil,
    adapter: SimulatedAdapterSection? = nil
  ) {
    self.version = version
    self.devices = devices
    self.gateways = gateways
    self.adapter = adapter
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case version, devices, gateways, adapter }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    version = try c.decode(Int.self, forKey: .version)
    guard version == Self.currentVersion else {
      throw invalidValue(
        decoder, CodingKeys.version, "unsupported version \(version); this build reads version \(Self.currentVersion)")
    }
    devices = try c.decode([SimulatedDevice].self, forKey: .devices)
    var seen: Set<BluetoothAddress> = []
    for (i, device) in devices.enumerated() where !seen.insert(device.address).inserted {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath + [
            CodingKeys.devices, JSONCodingKey(intValue: i), SimulatedDevice.CodingKeys.address,
          ],
          debugDescription: "duplicate address \(device.address)"))
    }
    gateways = try c.decodeIfPresent(GatewayViews.self, forKey: .gateways)
    try gateways?.check(against: devices, path: decoder.codingPath + [CodingKeys.gateways])
    adapter = try c.decodeIfPresent(SimulatedAdapterSection.self, forKey: .adapter)
  }

  /// Decodes fleet JSON; `file` names the source in errors, each one `FILE:LINE:COL: $.path: message`.
  public static func decode(_ data: Data, file: String = "fleet") throws(JSONDiagnostic) -> SimulatedFleet {
    try JSONFileDecoder(file: file).decode(SimulatedFleet.self, from: data)
  }

  /// Reads and decodes a fleet file.
  public static func load(path: String) throws(JSONDiagnostic) -> SimulatedFleet {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw JSONDiagnostic(
        file: path, position: nil, path: .root, message: "cannot read the file (\(error.localizedDescription))")
    }
    return try decode(data, file: path)
  }

  /// Pretty JSON in the file format (sorted keys), in the tool's one output style.
  public func encoded() throws -> Data { Data(try JSONValueEncoder().pretty(self).utf8) }
}
