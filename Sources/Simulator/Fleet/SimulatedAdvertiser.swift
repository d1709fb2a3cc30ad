import BeaconCore

/// The radio side of one simulated device: it produces the raw AD bytes of each advertising PDU and of
/// its scan response, with the same encoders whose output the real parser reads. Each frame section is a
/// slot; PDUs cycle through the slots. The Eddystone-TLM counters are live: ADV_CNT counts PDUs since the
/// simulated boot, SEC_CNT the elapsed time in 0.1 s (docs/protocols/beacon-formats.md §2 "TLM").
public struct SimulatedAdvertiser: Sendable {
  public let device: SimulatedDevice
  /// ADV_IND when connectable, ADV_SCAN_IND when it has a scan response, else ADV_NONCONN_IND.
  public let pduKind: AdvertisingReport.Kind
  /// The scan response AD bytes (name, KKM 0x2080 data), or nil when there is none.
  public let scanResponse: [UInt8]?
  private let slots: [Slot]
  /// Flags + the complete 16-bit UUID list naming Eddystone, which precede every Eddystone frame.
  private let eddystonePrefix: [UInt8]
  private var rssi: RSSIRandomWalk
  private var jitter: SeededGenerator
  /// Advertising PDUs sent since the scan started.
  public private(set) var pduCount: UInt32 = 0

  enum Slot: Sendable {
    case fixed([UInt8])
    case tlm(EddystoneTLMSection)
  }

  public init(device: SimulatedDevice) {
    self.device = device
    let seed = device.address.rawValue
    rssi = RSSIRandomWalk(profile: device.rssi, defaultSeed: seed)
    jitter = SeededGenerator(seed: seed ^ 0xA5A5_5A5A_0F0F_F0F0)
    let flags = ADEncoder.flags(device.connectable ? 0x06 : 0x04)
    let eddystonePrefix = flags + ADEncoder.completeUUIDs16([BeaconConstants.eddystoneService])
    self.eddystonePrefix = eddystonePrefix
    var slots: [Slot] = []
    if let s = device.iBeacon { slots.append(.fixed(flags + s.frame.adStructure)) }
    if let s = device.eddystoneUID { slots.append(.fixed(eddystonePrefix + s.frame.adStructure())) }
    if let s = device.eddystoneURL, let ad = try? s.frame.adStructure() { slots.append(.fixed(eddystonePrefix + ad)) }
    if let s = device.eddystoneTLM { slots.append(.tlm(s)) }
    if let s = device.sensor {
      let frame = s.frame(legacy: device.kind == .kbeaconLegacy)
      slots.append(
        .fixed(
          s.carrier == .eddystone ? eddystonePrefix + frame.eddystoneADStructure : flags + frame.manufacturerADStructure
        ))
    }
    if let s = device.system { slots.append(.fixed(flags + s.frame(mac: device.address).manufacturerADStructure)) }
    // A text-stream device names its service, so `scan` can mark it before connecting.
    if let service = device.textStreamService { slots.append(.fixed(flags + ADEncoder.completeUUIDs128([service]))) }
    for raw in device.rawAdvertising ?? [] { slots.append(.fixed(raw.array)) }
    self.slots = slots
    var response: [UInt8] = []
    if let name = device.name { response += ADEncoder.localName(name) }
    if let kkm = Self.kkmScanResponse(device) { response += KKMScanResponseFrame.adStructure(kkm) }
    scanResponse = response.isEmpty ? nil : response
    pduKind = device.connectable ? .connectable : (scanResponse != nil ? .scannable : .nonConnectable)
  }

  /// The 0x2080 service data (docs/protocols/kbeacon.md §10.2): v2 "Pro" sends battery, `00 01` and the MAC's
  /// low three bytes; v1 sends battery, flag 0x04 and the iBeacon major/minor when it has an iBeacon slot,
  /// else flag 0x01 (as the real K6 sample `6D 01 00 00 00 00`).
  static func kkmScanResponse(_ device: SimulatedDevice) -> [UInt8]? {
    if let raw = device.kkmScanResponse { return raw.array }
    let battery = device.system?.batteryPercent ?? 100
    switch device.kind {
    case .kbeaconPro:
      return [battery, 0x00, 0x01] + device.address.bytes.suffix(3)
    case .kbeaconLegacy:
      guard let b = device.iBeacon else { return [battery, 0x01, 0, 0, 0, 0] }
      var out: [UInt8] = [battery, 0x04]
      out.appendBE(b.major)
      out.appendBE(b.minor)
      return out
    case .iBeacon, .eddystone, .tertiumReader, .nordicUART:
      return nil
    }
  }

  public var interval: Duration { .milliseconds(device.intervalMs) }

  /// When the first PDU goes out after the scan starts: a phase within one interval, fixed per address.
  public var firstOffset: Duration {
    .microseconds(Int64(device.address.rawValue % UInt64(device.intervalMs * 1000)))
  }

  /// Time to the next PDU: the interval plus the 0–10 ms advDelay (Core Vol 6 Part B §4.4.2.2.1).
  public mutating func nextDelay() -> Duration {
    interval + .microseconds(Int64.random(in: 0...10_000, using: &jitter))
  }

  /// The next advertising PDU's AD bytes and the RSSI it is received with; `elapsed` is the time since the
  /// scan started (for the TLM counters).
  public mutating func nextPDU(elapsed: Duration) -> (data: [UInt8], rssi: Int8) {
    let slot = slots.isEmpty ? Slot.fixed([]) : slots[Int(pduCount % UInt32(slots.count))]
    pduCount &+= 1
    let data: [UInt8]
    switch slot {
    case .fixed(let bytes): data = bytes
    case .tlm(let section): data = tlmPDU(section, elapsed: elapsed)
    }
    return (data, rssi.next())
  }

  /// RSSI for a scan response right after an advertising PDU.
  public mutating func nextRSSI() -> Int8 { rssi.next() }

  private func tlmPDU(_ section: EddystoneTLMSection, elapsed: Duration) -> [UInt8] {
    let uptime = section.uptimeSeconds ?? 3600
    let elapsedTenths = elapsed.components.seconds * 10 + elapsed.components.attoseconds / 100_000_000_000_000_000
    let frame = EddystoneTLMFrame(
      batteryMillivolts: section.batteryMillivolts, temperature: section.temperature,
      advertisingCount: UInt32(truncatingIfNeeded: uptime * 1000 / device.intervalMs) &+ pduCount,
      uptimeTenths: UInt32(truncatingIfNeeded: Int64(uptime) * 10 + elapsedTenths))
    return eddystonePrefix + frame.adStructure
  }
}
