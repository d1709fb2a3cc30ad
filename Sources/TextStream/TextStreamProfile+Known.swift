import BeaconCore

/// The profiles of docs/protocols/text-stream.md: the five of the current Tertium libraries, the legacy 2017–2018
/// one, and the Nordic UART Service. Detection is by service UUID after discovery (`detect(in:)`), or by
/// an advertised service UUID (`matching(advertised:)`).
///
/// Choices [I]:
/// - ACKme/Zentri fragment size: iOS fragments by the 20-byte tx packet size, Android by the 15-byte rx
///   one (docs/protocols/text-stream.md, "Known profiles"). This profile uses 15, the smaller, which every ACKme module accepts.
/// - The Nordic UART Service defines no terminator; AT-command firmwares use CR or CRLF. This profile
///   appends CRLF, which both kinds of parser accept as end of line; `--terminator` changes it.
/// - The legacy profile (packet 20) keeps the current library's timeouts.
extension TextStreamProfile {
  public static let tertiumSensor = TextStreamProfile(
    id: "tertium-sensor", name: "Tertium sensor", service: uuid("f3770001-1164-49bc-8f22-0ac34292c217"),
    rx: uuid("f3770002-1164-49bc-8f22-0ac34292c217"), tx: uuid("f3770003-1164-49bc-8f22-0ac34292c217"),
    terminator: .crlf, packetSize: 240)

  public static let ackme = TextStreamProfile(
    id: "ackme", name: "Zentri/ACKme (Tertium RFID reader)", service: uuid("175f8f23-a570-49bd-9627-815a6a27de2a"),
    rx: uuid("1cce1ea8-bd34-4813-a00a-c76e028fadcb"), tx: uuid("cacc07ff-ffff-4c48-8fae-a9ef71b75e26"),
    extras: [Extra(role: .setMode, uuid: uuid("20b9794f-da1a-4d14-8014-a0fb9cefb2f7"))],
    terminator: .crlf, packetSize: 15)

  public static let zhaga = TextStreamProfile(
    id: "zhaga", name: "Zhaga TxRx", service: uuid("3cc30001-cb91-4947-bd12-80d2f0535a30"),
    rx: uuid("3cc30002-cb91-4947-bd12-80d2f0535a30"), tx: uuid("3cc30003-cb91-4947-bd12-80d2f0535a30"),
    extras: [Extra(role: .event, uuid: uuid("3cc30004-cb91-4947-bd12-80d2f0535a30"))],
    terminator: .cr, packetSize: 240)

  public static let tertiumTxRx = TextStreamProfile(
    id: "tertium-txrx", name: "Tertium TxRx", service: uuid("d7080001-052c-46c4-9978-c0977bebf328"),
    rx: uuid("d7080002-052c-46c4-9978-c0977bebf328"), tx: uuid("d7080003-052c-46c4-9978-c0977bebf328"),
    terminator: .crlf, packetSize: 240)

  public static let tertiumZebra = TextStreamProfile(
    id: "tertium-zebra", name: "Tertium-Zebra TxRx", service: uuid("c1ff0001-c47e-424d-9495-fb504404b8f5"),
    rx: uuid("c1ff0002-c47e-424d-9495-fb504404b8f5"), tx: uuid("c1ff0003-c47e-424d-9495-fb504404b8f5"),
    terminator: .crlf, packetSize: 240)

  public static let tertiumLegacy = TextStreamProfile(
    id: "tertium-legacy", name: "TERTIUM SENSOR READER (legacy)",
    service: uuid("3CC33CDC-CB91-4947-BD12-80D2F0535A30"), rx: uuid("3664D14A-08CB-4465-A98A-EBF84F29E943"),
    tx: uuid("F3774638-1164-49BC-8F22-0AC34292C217"), terminator: .crlf, packetSize: 20)

  public static let nordicUART = TextStreamProfile(
    id: "nordic-uart", name: "Nordic UART Service", service: uuid("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"),
    rx: uuid("6E400002-B5A3-F393-E0A9-E50E24DCCA9E"), tx: uuid("6E400003-B5A3-F393-E0A9-E50E24DCCA9E"),
    terminator: .crlf, packetSize: nil)

  /// Every known profile, in detection order.
  public static let known: [TextStreamProfile] = [
    tertiumTxRx, tertiumZebra, zhaga, tertiumSensor, ackme, tertiumLegacy, nordicUART,
  ]

  /// The known profile with this id (`--profile`), case-insensitively.
  public static func named(_ id: String) -> TextStreamProfile? {
    known.first { $0.id == id.lowercased() }
  }

  /// The first known profile whose service, Rx and Tx the discovered database holds.
  public static func detect(in database: GATTDatabase) -> TextStreamProfile? {
    known.first { $0.isPresent(in: database) }
  }

  /// The first known profile whose service is among the advertised service UUIDs (what `scan` can know
  /// before connecting; a device that advertises no service is found only by `detect(in:)`).
  public static func matching(advertised services: some Sequence<BluetoothUUID>) -> TextStreamProfile? {
    let set = Set(services)
    return known.first { set.contains($0.service) }
  }

  /// Whether `database` has this profile's service with both Rx and Tx in it.
  public func isPresent(in database: GATTDatabase) -> Bool {
    guard let s = database.service(service) else { return false }
    return s.characteristic(rx) != nil && s.characteristic(tx) != nil
  }

  private static func uuid(_ text: String) -> BluetoothUUID {
    guard let value = BluetoothUUID(text) else { preconditionFailure("bad UUID literal \(text)") }
    return value
  }
}
