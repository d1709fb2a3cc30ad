/// `select`: which of the devices a scan finds the profile applies to. Every given criterion must hold
/// (they are ANDed); an empty selection matches every KBeacon-like connectable device found.
public struct Selection: Sendable, Hashable {
  /// Exact addresses. When given, only these devices are considered, and their order is the order
  /// `{{index}}` counts in when there is no inventory.
  public var addresses: [String]? { didSet { addressIndex = Self.addressIndex(addresses) } }
  /// Each of `addresses`, upper-cased, with its first position: the selection test and `{{index}}` look an
  /// address up by hash, not by walking the list (a list of 100,000 addresses made loading quadratic).
  private var addressIndex: [String: Int]?
  /// A glob on the advertised name (`*` any run, `?` one character), e.g. `KBPro_*`.
  public var name: String?
  /// Models (the device's `model` key) the profile is for; a glob each.
  public var models: [String]?
  /// Firmware versions the profile is for, e.g. `>=5.20, <6`.
  public var firmware: FirmwareRange?
  /// Ignore devices heard below this RSSI (dBm), so a site's neighbours are not touched.
  public var minimumRSSI: Int?
  /// Inventory tags a device must carry (all of them).
  public var tags: [String]?

  public init(
    addresses: [String]? = nil, name: String? = nil, models: [String]? = nil, firmware: FirmwareRange? = nil,
    minimumRSSI: Int? = nil, tags: [String]? = nil
  ) {
    self.addresses = addresses
    addressIndex = Self.addressIndex(addresses)
    self.name = name
    self.models = models
    self.firmware = firmware
    self.minimumRSSI = minimumRSSI
    self.tags = tags
  }

  /// Where `address` (any case) is in `addresses`, the first place if it is there twice; nil when it is not
  /// there or there is no address list.
  public func position(of address: String) -> Int? { addressIndex?[address.uppercased()] }

  static func addressIndex(_ addresses: [String]?) -> [String: Int]? {
    guard let addresses else { return nil }
    var index: [String: Int] = [:]
    index.reserveCapacity(addresses.count)
    for (i, address) in addresses.enumerated() where index[address.uppercased()] == nil {
      index[address.uppercased()] = i
    }
    return index
  }

  /// What is known about a device before connecting (from the scan and the inventory).
  public struct Candidate: Sendable, Hashable {
    public var address: String
    public var name: String?
    public var rssi: Int?
    public var tags: Set<String>

    public init(address: String, name: String?, rssi: Int?, tags: Set<String> = []) {
      self.address = address
      self.name = name
      self.rssi = rssi
      self.tags = tags
    }
  }

  /// The scan-time criteria: addresses, name, RSSI, tags. `nil` when selected, otherwise why not.
  public func rejection(of c: Candidate) -> String? {
    if addresses != nil, position(of: c.address) == nil {
      return "address not in select.addresses"
    }
    if let name, !Glob(name).matches(c.name ?? "") {
      return "name \(c.name.map { "'\($0)'" } ?? "(none)") does not match '\(name)'"
    }
    if let minimumRSSI, let rssi = c.rssi, rssi < minimumRSSI { return "RSSI \(rssi) dBm below \(minimumRSSI) dBm" }
    if let tags {
      let missing = tags.filter { !c.tags.contains($0) }
      if !missing.isEmpty {
        return "missing inventory tag\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", "))"
      }
    }
    return nil
  }

  /// The criteria only a connection can tell: model and firmware (read back from the device).
  public func rejection(model: String?, firmware: FirmwareVersion?) -> String? {
    if let models, !models.contains(where: { Glob($0).matches(model ?? "") }) {
      return "model \(model ?? "(unknown)") not in select.models"
    }
    if let range = self.firmware {
      guard let firmware else { return "firmware version unknown, select.firmware is \(range)" }
      if !range.contains(firmware) { return "firmware \(firmware) outside \(range)" }
    }
    return nil
  }
}

/// Shell-style glob: `*` matches any run of characters, `?` exactly one; case-sensitive.
public struct Glob: Sendable, Hashable {
  public var pattern: String
  public init(_ pattern: String) { self.pattern = pattern }

  public func matches(_ text: String) -> Bool {
    let p = Array(pattern)
    let t = Array(text)
    var pi = 0
    var ti = 0
    var star = -1
    var mark = 0
    while ti < t.count {
      if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
        pi += 1
        ti += 1
      } else if pi < p.count, p[pi] == "*" {
        star = pi
        mark = ti
        pi += 1
      } else if star >= 0 {
        pi = star + 1
        mark += 1
        ti = mark
      } else {
        return false
      }
    }
    while pi < p.count, p[pi] == "*" { pi += 1 }
    return pi == p.count
  }
}
