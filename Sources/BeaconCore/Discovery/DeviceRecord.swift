/// What is known about one device (one address): advertising PDUs and scan responses merged. The name
/// comes from either (latest seen wins), frames from both, `connectable` from the advertising PDU type
/// (scan responses say nothing about it). Times are seconds since the discovery session's origin.
///
/// Frame policy (blukii `BKDiscoveryData`, docs/protocols/info-manager.md, "The SDK's classes"): *within* one record — one discovery window — each
/// frame kind is kept once, the **first** one received; later frames of the same kind are ignored, except
/// that a good frame replaces a malformed one. *Across* windows (`merge(newer:)`) the newer window's frame
/// of a kind replaces the older one, so a session's final record shows the latest window's values.
public struct DeviceRecord: Sendable, Hashable, Codable {
  public var address: BluetoothAddress
  public var addressType: AddressType
  public var name: String?
  /// Every local name heard at this address, first heard first (at most `maximumNames`), when there was more
  /// than one; nil otherwise. Two advertisers share an address when a device's DFU bootloader comes up at its
  /// application's address + 1, the next device's (docs/protocols/nordic-dfu.md §2.2): `name` is whichever
  /// spoke last, and this keeps both, so a bootloader named for its device is found while the neighbour
  /// advertises too.
  public var names: [String]?
  /// From the latest advertising PDU (ADV_IND / ADV_DIRECT_IND); nil when only scan responses were seen.
  public var connectable: Bool?
  public var rssi: RSSIStatistics
  /// Seconds since the session origin of the first report (blukii "deviceFoundDate").
  public var firstSeen: Double
  public var lastSeen: Double
  /// PDU kinds received in the latest window, e.g. `["ADV_IND", "SCAN_RSP"]`, sorted.
  public var reportKinds: [String]
  public var advertisingReports: Int
  public var scanResponses: Int
  /// The Tx power level AD, when advertised.
  public var txPowerLevel: Int8?
  /// At most one frame per `FrameKind`, ordered by kind.
  public var frames: [BeaconFrame]
  /// The 128-bit service UUIDs the device advertises — vendor services such as the text-stream ones,
  /// which `scan` marks; nil when none. 16-bit lists are not kept: the one beacons send, Eddystone's
  /// FEAA, is already told by its frames [I].
  public var vendorServices: [BluetoothUUID]?

  /// The most names `names` keeps [I: two advertisers is the case it is for; a few more is noise].
  public static let maximumNames = 4

  /// `names`, or `name` alone.
  public var allNames: [String] { names ?? name.map { [$0] } ?? [] }

  /// Adds `heard` to `names` (not to `name`: the caller says which name is the latest).
  private mutating func addName(_ heard: String) {
    var list = allNames
    if !list.contains(heard), list.count < Self.maximumNames { list.append(heard) }
    names = list.count > 1 ? list : nil
  }

  /// A record started by one report.
  public init(report: AdvertisingReport, decoded: DecodedAdvertisement, at seconds: Double) {
    address = report.address
    addressType = report.addressType
    rssi = RSSIStatistics()
    firstSeen = seconds
    lastSeen = seconds
    reportKinds = []
    advertisingReports = 0
    scanResponses = 0
    frames = []
    absorb(report: report, decoded: decoded, at: seconds)
  }

  /// Adds one report received in the same window.
  public mutating func absorb(report: AdvertisingReport, decoded: DecodedAdvertisement, at seconds: Double) {
    if let n = decoded.localName {
      addName(n)
      name = n
    }
    if report.kind == .scanResponse {
      scanResponses += 1
    } else {
      advertisingReports += 1
      connectable = report.kind.isConnectable
    }
    addressType = report.addressType
    rssi.add(report.rssi)
    firstSeen = min(firstSeen, seconds)
    lastSeen = max(lastSeen, seconds)
    let kind = report.kind.pduName
    if !reportKinds.contains(kind) {
      reportKinds.append(kind)
      reportKinds.sort()
    }
    if let tx = decoded.txPowerLevel { txPowerLevel = tx }
    addServices(decoded.serviceUUIDs128)
    for frame in decoded.frames { keepFirst(frame) }
  }

  private mutating func addServices(_ uuids: [BluetoothUUID]) {
    for uuid in uuids where !(vendorServices ?? []).contains(uuid) { vendorServices = (vendorServices ?? []) + [uuid] }
  }

  private mutating func keepFirst(_ frame: BeaconFrame) {
    if let i = frames.firstIndex(where: { $0.kind == frame.kind }) {
      if case .malformed = frames[i], !frame.isMalformed { frames[i] = frame }
      return
    }
    frames.append(frame)
    frames.sort { $0.kind < $1.kind }
  }

  /// Folds a later window's record of the same device into this one.
  public mutating func merge(newer: DeviceRecord) {
    for heard in newer.allNames { addName(heard) }
    name = newer.name ?? name
    connectable = newer.connectable ?? connectable
    addressType = newer.addressType
    rssi.merge(newer.rssi)
    firstSeen = min(firstSeen, newer.firstSeen)
    lastSeen = max(lastSeen, newer.lastSeen)
    reportKinds = newer.reportKinds
    advertisingReports += newer.advertisingReports
    scanResponses += newer.scanResponses
    txPowerLevel = newer.txPowerLevel ?? txPowerLevel
    addServices(newer.vendorServices ?? [])
    for frame in newer.frames {
      if let i = frames.firstIndex(where: { $0.kind == frame.kind }) { frames[i] = frame } else { frames.append(frame) }
    }
    frames.sort { $0.kind < $1.kind }
  }

  /// The frame of this kind, if any.
  public func frame(_ kind: FrameKind) -> BeaconFrame? { frames.first { $0.kind == kind } }
}

/// Latest, lowest and highest RSSI in dBm. HCI's 127 ("not available") is not counted.
public struct RSSIStatistics: Sendable, Hashable, Codable {
  public var latest: Int8?
  public var min: Int8?
  public var max: Int8?

  public init() {}

  public mutating func add(_ value: Int8) {
    guard value != 127 else { return }
    latest = value
    min = Swift.min(min ?? value, value)
    max = Swift.max(max ?? value, value)
  }

  /// No value heard (only 127s, or none): JSON `null`, where an empty object printed as `"rssi" : {` and a
  /// blank line.
  public var isEmpty: Bool { latest == nil && min == nil && max == nil }

  enum CodingKeys: String, CodingKey { case latest, min, max }

  public init(from decoder: any Decoder) throws {
    if let single = try? decoder.singleValueContainer(), single.decodeNil() { return }
    let c = try decoder.container(keyedBy: CodingKeys.self)
    latest = try c.decodeIfPresent(Int8.self, forKey: .latest)
    min = try c.decodeIfPresent(Int8.self, forKey: .min)
    max = try c.decodeIfPresent(Int8.self, forKey: .max)
  }

  public func encode(to encoder: any Encoder) throws {
    if isEmpty {
      var single = encoder.singleValueContainer()
      try single.encodeNil()
      return
    }
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encodeIfPresent(latest, forKey: .latest)
    try c.encodeIfPresent(min, forKey: .min)
    try c.encodeIfPresent(max, forKey: .max)
  }

  mutating func merge(_ newer: RSSIStatistics) {
    latest = newer.latest ?? latest
    if let m = newer.min { min = Swift.min(min ?? m, m) }
    if let m = newer.max { max = Swift.max(max ?? m, m) }
  }
}

extension BeaconFrame {
  public var isMalformed: Bool {
    if case .malformed = self { return true }
    return false
  }
}

extension AdvertisingReport.Kind {
  /// The PDU name from Core Vol 6 Part B §2.3 (`ADV_IND`, `SCAN_RSP`, …).
  public var pduName: String {
    switch self {
    case .connectable: "ADV_IND"
    case .directed: "ADV_DIRECT_IND"
    case .scannable: "ADV_SCAN_IND"
    case .nonConnectable: "ADV_NONCONN_IND"
    case .scanResponse: "SCAN_RSP"
    }
  }
}
