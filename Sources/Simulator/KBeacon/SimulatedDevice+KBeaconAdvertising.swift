import BeaconCore
import KBeacon

extension SimulatedDevice {
  /// This KBeacon as it advertises under `configuration`: the frame sections, name, interval and
  /// connectable flag the advertiser plays come from the configuration's slots (docs/protocols/kbeacon.md §6.4
  /// v2, §7 v1, read by `KBeaconAdvertisingPlan`); identity, RSSI, scan-response override, `kbeacon` and
  /// `dfu` sections stay this entry's. Pure: the same entry and configuration give the same bytes.
  ///
  /// Per frame (docs/protocols/beacon-formats.md §1–§2, docs/protocols/kbeacon.md §10):
  /// - iBeacon: `uuid`, `majorID`, `minorID`; measured power = `meaPwr` (KBeacon's own "measured power at
  ///   1 m" setting, not moved by `txPwr`). A key the slot lacks (or cannot be read) takes this entry's
  ///   iBeacon value, else the KKM factory UUID / 0 / −59 dBm [I].
  /// - Eddystone UID/URL: `nid`/`sid`, `url`; the ranging byte (Tx power at 0 m) is this entry's value for
  ///   that frame — else `meaPwr` + 41 dB (docs/protocols/beacon-formats.md §2, "measure at 1 m and add 41 dBm") — plus
  ///   the slot's `txPwr`, kept within −100…20 [I]. A URL that does not encode to Eddystone (over 17
  ///   bytes) is not advertised [I].
  /// - Eddystone TLM: battery, temperature and uptime are readings: this entry's TLM section, else its
  ///   KSensor battery and temperature [I].
  /// - KSensor: the readings stay this entry's (`sensor`, default `SensorSection.simulatedReadings` when it
  ///   has none); the slot's include flags pick them: `ht` temperature + humidity, `axis` acceleration,
  ///   `lux`, `co2`; battery always; an absent flag includes the reading [I]. The carrier (Eddystone
  ///   service data or KKM manufacturer data) is the entry's.
  /// - System: model and battery are readings (this entry's System section, else model 0 and `btPt`);
  ///   the firmware is `ver` when it reads `V<major>.<minor>`, so a DFU shows on the air [I].
  ///   A v1 device has no System slot: its entry's System section stays as given.
  /// - The v2 0x2080 scan response reports the battery reading (the entry's System battery, else `btPt`),
  ///   also when no System slot is on (unless the entry gives its own bytes).
  /// - Each frame type is sent once: of two slots with the same type, the lower index wins [I].
  /// - Name: `name` / `devName` (empty → no name in the scan response); interval and connectable:
  ///   `KBeaconAdvertisingPlan.intervalMs` / `.connectable`. A configuration with no advertising slot leaves
  ///   the device with no frames: it is silent (`AdvertisingSchedule` skips it).
  ///
  /// Non-KBeacon kinds are returned unchanged.
  public func advertising(_ configuration: KBeaconConfiguration) -> SimulatedDevice {
    guard kind.isKBeacon else { return self }
    let plan = KBeaconAdvertisingPlan(configuration)
    var out = self
    out.iBeacon = nil
    out.eddystoneUID = nil
    out.eddystoneURL = nil
    out.eddystoneTLM = nil
    out.sensor = nil
    if plan.generation == .pro {
      out.system = nil
      // The 0x2080 scan response carries the battery reading whatever the slots send: this entry's System
      // battery, else `btPt`. Spelled out only where the advertiser's default (the System slot's, else 100 %)
      // would say otherwise.
      if kkmScanResponse == nil, let battery = system.map({ Int($0.batteryPercent) }) ?? plan.batteryPercent {
        let reading = UInt8(clamping: min(max(battery, 0), 100))
        if !plan.slots.contains(where: { $0.type == .system }), reading != 100 {
          out.kkmScanResponse = RawBytes([reading, 0x00, 0x01] + address.bytes.suffix(3))
        }
      }
    } else if let firmware = plan.firmware {
      out.system?.firmware = firmware
    }
    var sent: Set<AdvType> = []
    for slot in plan.slots where sent.insert(slot.type).inserted {
      switch slot.type {
      case .iBeacon: out.iBeacon = iBeaconSection(slot, plan)
      case .eddystoneUID: out.eddystoneUID = uidSection(slot, plan)
      case .eddystoneURL: out.eddystoneURL = urlSection(slot, plan)
      case .eddystoneTLM: out.eddystoneTLM = tlmSection()
      case .kSensor: out.sensor = sensorSection(slot)
      case .system: out.system = systemSection(plan)
      case .disabled, .aoa, .eBeacon: break
      }
    }
    out.name = plan.name.flatMap(Self.scanResponseName)
    out.intervalMs = plan.intervalMs ?? intervalMs
    out.connectable = plan.connectable ?? connectable
    return out
  }

  private func iBeaconSection(_ slot: KBeaconAdvertisingPlan.Slot, _ plan: KBeaconAdvertisingPlan) -> IBeaconSection {
    let uuid = slot.fields["uuid"]?.stringValue.flatMap { ProximityUUID($0) }
    return IBeaconSection(
      uuid: uuid ?? iBeacon?.uuid ?? DemoFleet.kkmUUID,
      major: slot.fields["majorID"]?.intValue.flatMap(UInt16.init(exactly:)) ?? iBeacon?.major ?? 0,
      minor: slot.fields["minorID"]?.intValue.flatMap(UInt16.init(exactly:)) ?? iBeacon?.minor ?? 0,
      measuredPower: plan.measuredPower.map { Int8(clamping: $0) } ?? iBeacon?.measuredPower ?? -59)
  }

  private func uidSection(_ slot: KBeaconAdvertisingPlan.Slot, _ plan: KBeaconAdvertisingPlan) -> EddystoneUIDSection {
    let namespace = slot.fields["nid"]?.stringValue.flatMap { Hex.decode($0) }.flatMap { $0.count == 10 ? $0 : nil }
    let instance = slot.fields["sid"]?.stringValue.flatMap { Hex.decode($0) }.flatMap { $0.count == 6 ? $0 : nil }
    return EddystoneUIDSection(
      namespace: namespace ?? eddystoneUID?.namespace.array ?? [UInt8](repeating: 0, count: 10),
      instance: instance ?? eddystoneUID?.instance.array ?? [UInt8](repeating: 0, count: 6),
      txPowerAt0m: rangingAt0m(eddystoneUID?.txPowerAt0m, slot, plan))
  }

  private func urlSection(_ slot: KBeaconAdvertisingPlan.Slot, _ plan: KBeaconAdvertisingPlan) -> EddystoneURLSection? {
    guard let url = slot.fields["url"]?.stringValue ?? eddystoneURL?.url,
      (try? EddystoneURLCodec.encode(url)) != nil
    else { return nil }
    return EddystoneURLSection(url: url, txPowerAt0m: rangingAt0m(eddystoneURL?.txPowerAt0m, slot, plan))
  }

  /// Tx power at 0 m: the entry's calibrated value (else `meaPwr` + 41) moved by the slot's `txPwr`.
  private func rangingAt0m(_ calibrated: Int8?, _ slot: KBeaconAdvertisingPlan.Slot, _ plan: KBeaconAdvertisingPlan)
    -> Int8
  {
    let base = calibrated.map(Int.init) ?? (plan.measuredPower ?? -59) + 41
    return Int8(min(max(base + slot.txPower, -100), 20))
  }

  private func tlmSection() -> EddystoneTLMSection {
    eddystoneTLM ?? EddystoneTLMSection(batteryMillivolts: sensor?.batteryMillivolts, temperature: sensor?.temperature)
  }

  private func sensorSection(_ slot: KBeaconAdvertisingPlan.Slot) -> SensorSection {
    let readings = sensor ?? .simulatedReadings
    func included(_ flag: ConfigKey<Bool>) -> Bool { slot.fields[flag.name].flatMap(Bool.init(json:)) ?? true }
    let ht = included(SlotKey.ht)
    return SensorSection(
      batteryMillivolts: readings.batteryMillivolts, temperature: ht ? readings.temperature : nil,
      humidity: ht ? readings.humidity : nil, acceleration: included(SlotKey.axis) ? readings.acceleration : nil,
      lux: included(SlotKey.lux) ? readings.lux : nil, co2ppm: included(SlotKey.co2) ? readings.co2ppm : nil,
      carrier: readings.carrier)
  }

  private func systemSection(_ plan: KBeaconAdvertisingPlan) -> SystemSection {
    SystemSection(
      model: system?.model ?? 0,
      batteryPercent: system?.batteryPercent ?? UInt8(clamping: min(plan.batteryPercent ?? 100, 100)),
      firmware: plan.firmware ?? system?.firmware ?? "0.0")
  }

  /// The name as the scan response carries it: nil when empty, cut to the 29 bytes a scan response holds
  /// (a KBeacon name is at most 18 characters, §6.3, so only a name restored from odd state is cut), at a
  /// character boundary. One pass from the front: dropping one character at a time from the end and
  /// counting the bytes again each time took seconds per advertisement for the fault matrix's 20 000-byte
  /// hostile name, and starved every other simulated device of its scan.
  static func scanResponseName(_ name: String) -> String? {
    var end = name.startIndex
    var bytes = 0
    for index in name.indices {
      bytes += name[index].utf8.count
      guard bytes <= 29 else { break }
      end = name.index(after: index)
    }
    return end == name.startIndex ? nil : String(name[..<end])
  }
}

extension SensorSection {
  /// The readings of a simulated KBeacon whose fleet entry gives none, when its configuration turns a
  /// KSensor slot on [I]: 3000 mV, 21.0 °C (the simulated history's base temperature), 40 %, lying flat
  /// (0, 0, 1000 mg).
  public static let simulatedReadings = SensorSection(
    batteryMillivolts: 3000, temperature: 21.0, humidity: 40.0, acceleration: [0, 0, 1000])
}
