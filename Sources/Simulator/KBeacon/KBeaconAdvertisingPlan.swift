import JSON
import KBeacon

/// What a KBeacon configuration asks its radio to send, read the same way for both generations
/// (docs/protocols/kbeacon.md §6.3–§6.4 for v2 slots, §7 for the v1 flat object): the frames in slot order and the
/// device-wide settings the frames carry. `SimulatedDevice.advertising(_:)` turns it into frame sections.
///
/// Choices [I]:
/// - v2: a slot advertises when its `type` is one of KSensor, Eddystone UID/TLM/URL, iBeacon or System and
///   `trAdv` is not 1 (the simulator fires no triggers, so trigger-only slots stay silent). AOA and
///   EBeacon slots are not advertised (the simulator has no encoder for them); `mode` and `chMsk` are
///   ignored (every simulated PDU is a legacy PDU on one simulated channel).
/// - v1: the enabled frames are the bits of `type` (0x1 KSensor, 0x2 UID, 0x4 iBeacon, 0x8 TLM, 0x10 URL);
///   each is a slot with the flat object's keys, the global `txPwr`, and a period of `advPrd` × frame count,
///   because v1 sends its frames in turn, one per `advPrd` [I]. `tlmItvl` is not modelled (TLM takes its
///   turn like any frame); v1 triggers are not modelled. The `sensor` mask (0x1 acc, 0x2 humidity) picks
///   the KSensor readings.
/// - A slot without `advPrd` has the SDK default period, 1000 ms (§6.4); without `conn` it is connectable.
public struct KBeaconAdvertisingPlan: Sendable, Hashable {
  /// One slot that is on the air.
  public struct Slot: Sendable, Hashable {
    public var index: Int
    public var type: AdvType
    /// The slot's own keys (`uuid`, `majorID`, `nid`, `url`, `ht`, …), as the device JSON holds them.
    public var fields: JSONObject
    /// `txPwr`, dBm (0 when absent).
    public var txPower: Int
    /// `advPrd`, ms: how often this slot's frame goes out.
    public var periodMs: Double
    public var connectable: Bool
  }

  public var generation: ProtocolGeneration
  /// The advertising slots, lowest index first.
  public var slots: [Slot]
  /// `meaPwr`: RSSI at 1 m, dBm.
  public var measuredPower: Int?
  /// `name` (v2) or `devName` (v1).
  public var name: String?
  /// `ver` as the System frame's `"major.minor"` when it reads `V<major>.<minor>` ("V5.22" → "5.22").
  public var firmware: String?
  /// `btPt` (v2), battery %.
  public var batteryPercent: Int?

  /// The SDK's default advertising period (§6.4 `advPrd` default 1000).
  static let defaultPeriodMs = 1000.0

  public init(_ configuration: KBeaconConfiguration) {
    generation = configuration.generation
    let common = configuration.common
    firmware = (common.fields["ver"]?.stringValue).flatMap(Self.systemFirmware)
    switch configuration.generation {
    case .pro:
      measuredPower = common[CommonKey.meaPwr]
      name = common[CommonKey.name]
      batteryPercent = common[CommonKey.btPt]
      slots = configuration.slots.compactMap(Self.proSlot).sorted { $0.index < $1.index }
    case .legacy:
      measuredPower = common[LegacyKey.meaPwr]
      name = common[LegacyKey.devName]
      batteryPercent = nil
      slots = Self.legacySlots(common)
    }
  }

  private static func proSlot(_ slot: SlotConfig) -> Slot? {
    guard let index = slot.index, let type = slot.advType, Self.advertisable.contains(type),
      slot[SlotKey.trAdv] != true
    else { return nil }
    return Slot(
      index: index, type: type, fields: slot.fields, txPower: slot[SlotKey.txPwr] ?? 0,
      periodMs: slot[SlotKey.advPrd] ?? defaultPeriodMs, connectable: slot[SlotKey.conn] ?? true)
  }

  /// v1: one slot per `type` bit, all sharing the flat object's keys; `advFlag` bit 0 is connectable.
  private static func legacySlots(_ common: CommonConfig) -> [Slot] {
    let mask = common[LegacyKey.type] ?? 0
    let enabled = AdvType.allCases.filter { mask & ($0.legacyTypeBit ?? 0) != 0 }
    let interval = common[LegacyKey.advPrd].flatMap { $0 > 0 ? $0 : nil } ?? defaultPeriodMs
    let connectable = (common[LegacyKey.advFlag] ?? 1) & 0x1 != 0
    var fields = common.fields
    if let sensors = common[LegacyKey.sensor] {
      fields[SlotKey.axis.name] = .int(sensors & 0x1)
      fields[SlotKey.ht.name] = .int(sensors & 0x2 == 0 ? 0 : 1)
    }
    return enabled.enumerated().map { i, type in
      Slot(
        index: i, type: type, fields: fields, txPower: common[LegacyKey.txPwr] ?? 0,
        periodMs: interval * Double(enabled.count), connectable: connectable)
    }
  }

  /// Frame types the simulator can send.
  static let advertisable: Set<AdvType> = [.kSensor, .eddystoneUID, .eddystoneTLM, .eddystoneURL, .iBeacon, .system]

  /// "V5.22" → "5.22" (the System section's text); a leading "V"/"v" is optional; nil unless the rest is
  /// `major.minor` as a System section reads it (each part 0…255).
  static func systemFirmware(_ text: String) -> String? {
    let body = String(text.first == "V" || text.first == "v" ? text.dropFirst() : Substring(text))
    return SystemSection(model: 0, batteryPercent: 0, firmware: body).firmwareParts == nil ? nil : body
  }

  /// The PDU interval that keeps the device's total PDU rate: 1 / Σ(1 / period) over the slots, rounded to
  /// whole ms and kept within the fleet file's 20…10240 ms [I]. The simulated advertiser sends the slots in
  /// turn at one interval, so slots with different periods each go out equally often at the mean rate
  /// (with equal periods P and N slots, each slot still goes out every P ms).
  public var intervalMs: Int? {
    guard !slots.isEmpty else { return nil }
    let rate = slots.reduce(0.0) { $0 + 1 / max($1.periodMs, 1) }
    return min(max(Int((1 / rate).rounded()), 20), 10240)
  }

  /// Connectable when any advertising slot is (the device answers connections on its connectable slots)
  /// [I]; nil with no slot.
  public var connectable: Bool? { slots.isEmpty ? nil : slots.contains { $0.connectable } }
}
