import BeaconCore
import JSON
import KBeacon

extension SimulatedDevice {
  /// The configuration this KBeacon starts with: `factory` (its `KBeaconDeviceProfile`'s) with the
  /// advertising this fleet entry describes, so that `advertising(startingConfiguration(over:))` plays the
  /// fleet entry's frames unchanged and a `getPara` read agrees with what a scan shows. The fleet file's
  /// frame sections are the device's starting slots [I]:
  ///
  /// - v2 (docs/protocols/kbeacon.md §6.4): one slot per frame section, in the advertiser's order (iBeacon, UID,
  ///   URL, TLM, KSensor, System) from slot 0, each with `txPwr` 0, `conn` = `connectable`, `trAdv` 0,
  ///   `mode` 0 and `advPrd` = `intervalMs` × frame count (the advertiser sends its frames in turn, so each
  ///   goes out that often); the other slots up to `maxSlot` are off (`type` 0). More frames than slots:
  ///   the first `maxSlot` (fleet files are checked for this when read).
  /// - v1 (§7): `type` = the bits of the frame sections, `advPrd` = `intervalMs`, `advFlag` bit 0 =
  ///   `connectable`; a System section has no v1 counterpart and stays a fixed frame.
  /// - Both: the iBeacon's values in `uuid`/`majorID`/`minorID` and its measured power in `meaPwr`; the
  ///   UID's `nid`/`sid`; the URL's `url`; the KSensor readings present set the include flags (v2 `ht`,
  ///   `axis`, `lux`, `co2`; v1 `sensor` mask 0x1 acc, 0x2 humidity); the System firmware in `ver`
  ///   ("5.12" → "V5.12") and its battery in `btPt`, so a read reports the battery the frame advertised. Keys of frames the entry lacks keep their factory values.
  public func startingConfiguration(over factory: KBeaconConfiguration) -> KBeaconConfiguration {
    var config = factory
    if let b = iBeacon {
      config.common.fields["meaPwr"] = .int(Int(b.measuredPower))
    }
    if let s = system {
      config.common.fields["ver"] = .string("V" + s.firmware)
      config.common.fields["btPt"] = .int(Int(s.batteryPercent))
    }
    switch factory.generation {
    case .pro:
      let maxSlot = factory.common[CommonKey.maxSlot] ?? 5
      let frames = Array(slotsForFrames().prefix(maxSlot))
      config.slots =
        frames.enumerated().map { index, slot in
          var fields: JSONObject = ["slot": .int(index)]
          for (key, value) in slot.fields { fields[key] = value }
          var slot = SlotConfig(fields: fields)
          slot[SlotKey.txPwr] = 0
          slot[SlotKey.advPrd] = Double(intervalMs * frames.count)
          slot[SlotKey.conn] = connectable
          slot[SlotKey.trAdv] = false
          slot[SlotKey.mode] = .legacy
          return slot
        } + (frames.count..<maxSlot).map { SlotConfig.disabled($0) }
    case .legacy:
      var mask = 0
      for slot in slotsForFrames() {
        guard let bit = slot.advType?.legacyTypeBit else { continue }
        mask |= bit
        for (key, value) in slot.fields where !["type", "ht", "axis", "lux", "co2"].contains(key) {
          config.common.fields[key] = value
        }
      }
      config.common[LegacyKey.type] = mask
      config.common[LegacyKey.advPrd] = Double(intervalMs)
      config.common[LegacyKey.advFlag] = (factory.common[LegacyKey.advFlag] ?? 0) & ~0x1 | (connectable ? 1 : 0)
      if let s = sensor {
        config.common[LegacyKey.sensor] = (s.acceleration != nil ? 0x1 : 0) | (s.hasHumidityReadings ? 0x2 : 0)
      }
    }
    return config
  }

  /// One v2 slot (type and type keys, no index) per frame section, in the advertiser's order.
  private func slotsForFrames() -> [SlotConfig] {
    var slots: [SlotConfig] = []
    func slot(_ type: AdvType, _ fields: JSONObject = [:]) {
      var slot = SlotConfig(fields: ["type": .int(type.rawValue)])
      for (key, value) in fields { slot.fields[key] = value }
      slots.append(slot)
    }
    if let b = iBeacon {
      slot(
        .iBeacon, ["uuid": .string(b.uuid.description), "majorID": .int(Int(b.major)), "minorID": .int(Int(b.minor))])
    }
    if let u = eddystoneUID {
      slot(
        .eddystoneUID, ["nid": .string("0x" + Hex.encode(u.namespace)), "sid": .string("0x" + Hex.encode(u.instance))])
    }
    if let u = eddystoneURL { slot(.eddystoneURL, ["url": .string(u.url)]) }
    if eddystoneTLM != nil { slot(.eddystoneTLM) }
    if let s = sensor {
      slot(
        .kSensor,
        [
          "ht": .int(s.hasHumidityReadings ? 1 : 0), "axis": .int(s.acceleration != nil ? 1 : 0),
          "lux": .int(s.lux != nil ? 1 : 0), "co2": .int(s.co2ppm != nil ? 1 : 0),
        ])
    }
    if system != nil, kind == .kbeaconPro { slot(.system) }
    return slots
  }
}

extension SensorSection {
  /// Whether a temperature or humidity reading is present (the KSensor `ht` group).
  var hasHumidityReadings: Bool { temperature != nil || humidity != nil }
}
