/// The report's totals: devices per status, per flag, the firmware and battery distributions, and the same
/// status counts per inventory tag. Worked out from the device rows alone (`init(_:)`), so a renderer never
/// counts on its own.
public struct AuditSummary: Sendable, Hashable, Codable {
  public var devices: Int
  public var status: AuditStatusCounts
  public var lowBattery: Int
  public var oldFirmware: Int
  public var lastRunFailed: Int
  /// Managed devices whose firmware version is not known (never read, and nothing on the air says it):
  /// `oldFirmware` could not judge them, so a passive audit of a never-read fleet says so rather than
  /// reporting "0 old firmware" as if it had compared.
  public var firmwareUnknown: Int
  /// Devices per firmware version, newest first; devices of unknown firmware under `unknown` (the counts add
  /// up to `devices`).
  public var firmware: [AuditBucket]
  /// Devices per battery percentage band (`0–9 %` … `90–100 %`), for devices that report a percentage.
  public var batteryPercent: [AuditBucket]
  /// Devices per battery voltage band, for devices that report only millivolts.
  public var batteryMillivolts: [AuditBucket]
  /// Devices whose battery is not known.
  public var batteryUnknown: Int
  /// Status counts per inventory tag, by tag name; devices without a tag are not counted here.
  public var tags: [AuditTagSummary]

  /// The devices some inventory or profile names or selects: every status but `unknown`. Compliance is a
  /// share of these — a site's phones and neighbours' beacons (unmanaged, `unknown`) are counted apart, or a
  /// fully applied fleet read "25 % compliant" among 21 beacons nobody manages.
  public var managed: Int { devices - status.unknown }

  /// `status` as a whole percentage of the managed devices (0 when there are none).
  public func managedPercent(_ count: Int) -> Int {
    managed == 0 ? 0 : Int((Double(count) * 100 / Double(managed)).rounded())
  }

  public init(_ devices: [AuditDevice]) {
    self.devices = devices.count
    status = AuditStatusCounts(devices)
    lowBattery = devices.filter { $0.flags.contains(.lowBattery) }.count
    oldFirmware = devices.filter { $0.flags.contains(.oldFirmware) }.count
    lastRunFailed = devices.filter { $0.flags.contains(.lastRunFailed) }.count
    firmwareUnknown = devices.filter { $0.status != .unknown && $0.firmwareVersion == nil }.count
    firmware = Self.firmwareBuckets(devices)
    batteryPercent = Self.percentBuckets(devices.compactMap { $0.battery?.percent })
    batteryMillivolts = Self.millivoltBuckets(
      devices.compactMap { $0.battery?.percent == nil ? $0.battery?.millivolts : nil })
    batteryUnknown = devices.filter { $0.battery?.isEmpty ?? true }.count
    let tagNames = Set(devices.flatMap(\.tags)).sorted()
    tags = tagNames.map { tag in
      AuditTagSummary(tag: tag, status: AuditStatusCounts(devices.filter { $0.tags.contains(tag) }))
    }
  }

  static func firmwareBuckets(_ devices: [AuditDevice]) -> [AuditBucket] {
    var counts: [String: Int] = [:]
    for d in devices { counts[d.firmwareVersion ?? "unknown", default: 0] += 1 }
    return counts.map { AuditBucket(label: $0.key, count: $0.value) }.sorted { a, b in
      if a.label == "unknown" || b.label == "unknown" { return b.label == "unknown" && a.label != "unknown" }
      return VersionOrder.newerFirst(a.label, b.label)
    }
  }

  /// Ten bands of ten percent; 100 % falls in the last.
  static func percentBuckets(_ values: [Int]) -> [AuditBucket] {
    (0..<10).map { band in
      let low = band * 10
      let high = band == 9 ? 100 : low + 9
      return AuditBucket(label: "\(low)–\(high) %", count: values.filter { min(max($0, 0) / 10, 9) == band }.count)
    }
  }

  /// Bands of 200 mV from under 2400 mV to 3000 mV and above.
  static func millivoltBuckets(_ values: [Int]) -> [AuditBucket] {
    let edges = [2400, 2600, 2800, 3000]
    var buckets = [AuditBucket(label: "< 2400 mV", count: values.filter { $0 < 2400 }.count)]
    for (low, high) in zip(edges, edges.dropFirst()) {
      buckets.append(AuditBucket(label: "\(low)–\(high - 1) mV", count: values.filter { $0 >= low && $0 < high }.count))
    }
    buckets.append(AuditBucket(label: "≥ 3000 mV", count: values.filter { $0 >= 3000 }.count))
    return buckets
  }
}

/// How many devices have each status.
public struct AuditStatusCounts: Sendable, Hashable, Codable {
  public var compliant: Int
  public var drifted: Int
  public var unreachable: Int
  public var missing: Int
  public var unknown: Int

  public init(_ devices: [AuditDevice]) {
    func count(_ s: AuditStatus) -> Int { devices.filter { $0.status == s }.count }
    compliant = count(.compliant)
    drifted = count(.drifted)
    unreachable = count(.unreachable)
    missing = count(.missing)
    unknown = count(.unknown)
  }

  public subscript(status: AuditStatus) -> Int {
    switch status {
    case .compliant: compliant
    case .drifted: drifted
    case .unreachable: unreachable
    case .missing: missing
    case .unknown: unknown
    }
  }
}

/// One bar of a distribution.
public struct AuditBucket: Sendable, Hashable, Codable {
  public var label: String
  public var count: Int

  public init(label: String, count: Int) {
    self.label = label
    self.count = count
  }
}

/// The status counts of the devices carrying one inventory tag.
public struct AuditTagSummary: Sendable, Hashable, Codable {
  public var tag: String
  public var status: AuditStatusCounts
}

/// Dotted version text ordered by its numbers (`5.10` after `5.9`); text that is not numeric sorts after.
enum VersionOrder {
  static func newerFirst(_ a: String, _ b: String) -> Bool {
    let x = numbers(a)
    let y = numbers(b)
    switch (x, y) {
    case (let x?, let y?): return x != y ? x.lexicographicallyPrecedes(y) == false : a < b
    case (.some, nil): return true
    case (nil, .some): return false
    case (nil, nil): return a < b
    }
  }

  static func numbers(_ text: String) -> [Int]? {
    let parts = text.split(separator: ".").map { Int($0) }
    guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else { return nil }
    return parts.map { $0! }
  }
}
