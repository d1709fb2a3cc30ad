import BeaconCore

/// Discovery as the blukii SDK does it (`BKDiscoverySettings`, docs/protocols/info-manager.md, "The SDK's classes" and "Defaults"):
/// scan windows of `scanDuration` separated by `waitDuration` of no scanning, reports below `rssiThreshold`
/// dropped, one record per module per window with the first frame of each kind. The windowing is the
/// project's `DiscoverySession` (the one `scan --window/--rssi-threshold` uses), given these settings.
public struct BlukiiDiscovery: Sendable, Hashable {
  public var scanDuration: Duration
  public var waitDuration: Duration
  public var rssiThreshold: Int8

  /// The SDK's defaults: 5000 ms scan, 15000 ms wait, −85 dBm.
  public static let sdkDefault = BlukiiDiscovery(
    scanDuration: .milliseconds(5000), waitDuration: .milliseconds(15000), rssiThreshold: -85)
  /// The RSSI thresholds the SDK allows.
  public static let rssiRange: ClosedRange<Int> = -120 ... -20

  public init(scanDuration: Duration, waitDuration: Duration, rssiThreshold: Int8) {
    self.scanDuration = scanDuration
    self.waitDuration = waitDuration
    self.rssiThreshold = rssiThreshold
  }

  /// The settings of the `DiscoverySession` that does the windowing.
  public var sessionSettings: DiscoverySettings {
    DiscoverySettings(window: scanDuration, rssiThreshold: rssiThreshold, pause: waitDuration)
  }

  /// The blukii modules of one window, in address order.
  public static func modules(in window: DiscoveryWindow) -> [BlukiiModule] {
    window.devices.compactMap { BlukiiModule(record: $0, window: window.index) }
  }

  /// The blukii modules among merged records (a whole scan), one per ID (the strongest), in ID order.
  public static func modules(in records: [DeviceRecord]) -> [BlukiiModule] {
    var byID: [String: BlukiiModule] = [:]
    for module in records.compactMap({ BlukiiModule(record: $0, window: 0) }) {
      if let known = byID[module.id], (known.rssi ?? -128) >= (module.rssi ?? -128) { continue }
      byID[module.id] = module
    }
    return byID.values.sorted { $0.id < $1.id }
  }
}

/// A blukii module heard in one discovery window, with the ID the Info Manager knows it by.
///
/// Recognised **by name** [I]: blukii publishes no advertising format for its Info beacons. What is public:
/// its modules name themselves `blukii …` — the SDK makes the `BKInputElement` of a heard module from its
/// device name (docs/protocols/info-manager.md, "The SDK's classes"), open-source tools match names starting `blukii ` (e.g. `blukii BTS1.0 …` for the
/// Smart Beacon, `blukii B12345 E4E1129B0B88` shapes in test fixtures), and deployed ones are seen configured
/// as iBeacons with the proximity UUID `626C756B-6969-2E63-6F6D-626561636F6E` ("blukii.combeacon" in ASCII),
/// which carries no module ID. The ID is the name's second word (`B12345`) [?]: the SDK's conversion of the
/// name to `BKOutputElement.id` is not public; change `id(fromName:)` when it is known.
public struct BlukiiModule: Sendable, Hashable, Codable {
  public var id: String
  public var address: BluetoothAddress
  public var name: String
  /// The strongest RSSI of the window, dBm.
  public var rssi: Int8?
  public var window: Int

  /// The module a record describes, nil when it is not a blukii module.
  public init?(record: DeviceRecord, window: Int) {
    guard let name = record.name, let id = Self.id(fromName: name) else { return nil }
    self.id = id
    self.address = record.address
    self.name = name
    self.rssi = record.rssi.max
    self.window = window
  }

  /// The Info Manager ID in a blukii device name (`blukii B12345 …` → `B12345`), nil for other names.
  ///
  /// The ID form [I]: ASCII letters, digits, `.` and `-`, at least one digit and at most 20 characters
  /// (blukii numbers such as `B12345`, type words such as `BTS1.0`). A second word without a digit is a
  /// product name, not a number: `Blukii Smart Key` is no module (it was resolved as "Smart" → NODATA).
  public static func id(fromName name: String) -> String? {
    let words = name.split(separator: " ", omittingEmptySubsequences: true)
    guard words.count >= 2, words[0].lowercased() == "blukii", isModuleID(words[1]) else { return nil }
    return String(words[1])
  }

  /// Whether a word has the ID form above.
  static func isModuleID(_ word: Substring) -> Bool {
    word.count <= 20 && word.contains(where: \.isNumber)
      && word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
  }

  /// The proximity UUID blukii modules configured as iBeacons are seen with ("blukii.combeacon").
  public static let iBeaconUUID = ProximityUUID("626C756B-6969-2E63-6F6D-626561636F6E")!
}
