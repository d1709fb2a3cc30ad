import KBeacon

/// The FEA3 indications a simulated KBeacon sends its app when a trigger fires (docs/protocols/kbeacon.md §8.3).
extension SimulatedKBeaconDevice {
  /// The FEA3 indication for a trigger event, when a trigger of that type reports to the app; nil otherwise.
  /// HT triggers carry `UTC, temp, hum`; other types carry `body` as given.
  public func indication(
    for type: TriggerType, now: UInt32, celsius: Double = 0, humidity: Double = 0, body: [UInt8] = []
  ) -> [UInt8]? {
    guard configuration.triggers.contains(where: { $0.triggerType == type && $0.actions.contains(.reportToApp) }) else {
      return nil
    }
    let event: IndicationEvent =
      (8...11).contains(type.rawValue)
      ? .humidity(trigger: type, utc: UInt32(clamping: Int64(now) + clockOffset), celsius: celsius, humidity: humidity)
      : .trigger(type: type.rawValue, body: body)
    return event.proPayload
  }
}
