import BeaconCore
import Foundation
import JSON

/// A simulated site with several gateways: which fleet devices each gateway hears, and at what
/// RSSI. In a fleet file:
///
///     "gateways": { "gw-1": { "DD:34:02:06:E0:00": -58, "DD:34:02:06:E0:01": -71 }, "gw-2": { … } }
///
/// `--adapter sim:FILE --gateway gw-1` then serves gw-1's view (`view(for:)`): only the devices it hears,
/// each at its RSSI with no random walk (so which gateway hears a device best is fixed). A device may be
/// heard by several gateways (overlaps) or by none. Every address must be a device of the fleet and every
/// RSSI within -127…20 dBm; errors name the JSON path.
public struct GatewayViews: Sendable, Hashable, Codable {
  /// RSSI by device address, by gateway name.
  public var heard: [String: [String: Int]]

  public init(heard: [String: [String: Int]]) { self.heard = heard }

  public init(from decoder: any Decoder) throws {
    heard = try decoder.singleValueContainer().decode([String: [String: Int]].self)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(heard)
  }

  public var names: [String] { heard.keys.sorted() }

  func check(against devices: [SimulatedDevice], path: [any CodingKey]) throws {
    let known = Set(devices.map(\.address))
    for (gateway, view) in heard.sorted(by: { $0.key < $1.key }) {
      for (key, rssi) in view.sorted(by: { $0.key < $1.key }) {
        let at = path + [JSONCodingKey(stringValue: gateway), JSONCodingKey(stringValue: key)]
        guard let address = BluetoothAddress(key), known.contains(address) else {
          throw DecodingError.dataCorrupted(
            .init(codingPath: at, debugDescription: "\(key) is not the address of a device in this fleet"))
        }
        guard (-127...20).contains(rssi) else {
          throw DecodingError.dataCorrupted(.init(codingPath: at, debugDescription: "\(rssi) dBm is outside -127…20"))
        }
      }
    }
  }
}

extension SimulatedFleet {
  /// What gateway `name` hears: the devices of its view at their RSSI (spread 0). Throws, naming the
  /// gateways there are, when the fleet has none of that name.
  public func view(for name: String) throws(FleetGatewayError) -> SimulatedFleet {
    guard let gateways else { throw FleetGatewayError(gateway: name, known: []) }
    guard let view = gateways.heard[name] else { throw FleetGatewayError(gateway: name, known: gateways.names) }
    let levels = Dictionary(
      uniqueKeysWithValues: view.compactMap { key, rssi in BluetoothAddress(key).map { ($0, rssi) } })
    let heard = devices.compactMap { device -> SimulatedDevice? in
      guard let rssi = levels[device.address] else { return nil }
      var device = device
      device.rssi = RSSIProfile(mean: rssi, spread: 0, seed: device.rssi.seed)
      return device
    }
    return SimulatedFleet(version: version, devices: heard, gateways: gateways)
  }
}

/// `--gateway` names no gateway of the fleet file.
public struct FleetGatewayError: Error, Sendable, CustomStringConvertible {
  public var gateway: String
  public var known: [String]
  public var description: String {
    known.isEmpty
      ? "the fleet file has no \"gateways\" section, so it has no gateway \(gateway)"
      : "the fleet file has no gateway \(gateway) (its gateways: \(known.joined(separator: ", ")))"
  }
}
