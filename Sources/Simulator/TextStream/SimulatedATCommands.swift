/// The AT command set of the simulated Nordic-UART device, in the style of the many BLE
/// modules configured by AT commands: three settable parameters that the device keeps (like a simulated
/// KBeacon's configuration, across links and — through `SimulatorStateStore` — across runs).
///
/// | command | answer |
/// |---|---|
/// | `AT` | `OK` |
/// | `AT+NAME?` | `+NAME:<name>` then `OK` |
/// | `AT+NAME=<name>` | `OK`; 1–20 printable ASCII characters, else `ERROR` |
/// | `AT+INTERVAL?` | `+INTERVAL:<ms>` then `OK` |
/// | `AT+INTERVAL=<ms>` | `OK`; 20–10240, else `ERROR` |
/// | `AT+TXPOWER?` | `+TXPOWER:<dBm>` then `OK` |
/// | `AT+TXPOWER=<dBm>` | `OK`; one of −40, −20, −16, −12, −8, −4, 0, 4, 8 (an nRF52's steps), else `ERROR` |
/// | `AT+VERSION?` | `+VERSION:SIM-AT 1.0` then `OK` |
/// | anything else | `ERROR` |
///
/// Commands are case-sensitive as most AT firmwares are [I]; each answer line ends with CRLF. A set to the
/// value already held answers `OK` and counts no write.
public struct SimulatedATCommands: Sendable, Hashable, Codable {
  public var name: String
  public var intervalMs: Int
  public var txPower: Int
  /// Settings changed over the device's simulated life.
  public var writes: Int

  public static let txPowerSteps = [-40, -20, -16, -12, -8, -4, 0, 4, 8]

  public init(name: String, intervalMs: Int, txPower: Int, writes: Int = 0) {
    self.name = name
    self.intervalMs = intervalMs
    self.txPower = txPower
    self.writes = writes
  }

  /// Answers one command line, applying a set.
  public mutating func answer(_ line: String) -> String {
    let command = line.trimmingSpaces
    switch command {
    case "AT": return "OK\r\n"
    case "AT+NAME?": return "+NAME:\(name)\r\nOK\r\n"
    case "AT+INTERVAL?": return "+INTERVAL:\(intervalMs)\r\nOK\r\n"
    case "AT+TXPOWER?": return "+TXPOWER:\(txPower)\r\nOK\r\n"
    case "AT+VERSION?": return "+VERSION:SIM-AT 1.0\r\nOK\r\n"
    default: break
    }
    if let value = command.value(after: "AT+NAME=") {
      guard (1...20).contains(value.count), value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
      else { return "ERROR\r\n" }
      return set(\.name, value)
    }
    if let value = command.value(after: "AT+INTERVAL="), let ms = Int(value), (20...10240).contains(ms) {
      return set(\.intervalMs, ms)
    }
    if let value = command.value(after: "AT+TXPOWER="), let dBm = Int(value), Self.txPowerSteps.contains(dBm) {
      return set(\.txPower, dBm)
    }
    return "ERROR\r\n"
  }

  /// The setting a set command names, by the name the write log gives it (`name`, `interval`, `txPower`); nil for
  /// a command that sets nothing.
  static func setting(of line: String) -> String? {
    let command = line.trimmingSpaces
    return [("AT+NAME=", "name"), ("AT+INTERVAL=", "interval"), ("AT+TXPOWER=", "txPower")]
      .first { command.hasPrefix($0.0) }?.1
  }

  private mutating func set<V: Equatable>(_ key: WritableKeyPath<Self, V>, _ value: V) -> String {
    if self[keyPath: key] != value {
      self[keyPath: key] = value
      writes += 1
    }
    return "OK\r\n"
  }
}

extension String {
  /// The rest of the string after `prefix`, or nil when it does not start with it.
  fileprivate func value(after prefix: String) -> String? {
    hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
  }
}
