import BeaconCore

/// What a served device (`ServedDevice`) puts on a real controller for one advertising PDU of its
/// `SimulatedAdvertiser`: the HCI advertising settings (Core v5.4 Vol 4 Part E §7.8.5–§7.8.8). Pure.
///
/// Choices [I]:
/// - The PDU type follows the device: ADV_IND when connectable, else ADV_NONCONN_IND. The HCI layer has no
///   ADV_SCAN_IND yet, so a non-connectable device with a scan response (a named iBeacon) is served as
///   ADV_NONCONN_IND without its scan response; `dropsScanResponse` says when that happens.
/// - The interval is the device's `intervalMs` in 0.625 ms units, clamped to the legacy range
///   0x0020…0x4000 (20 ms … 10.24 s).
public enum ServedAdvertising {
  /// The settings for one PDU's AD bytes.
  public static func settings(advertisingData: [UInt8], of advertiser: SimulatedAdvertiser) -> AdvertisingSettings {
    let connectable = advertiser.pduKind == .connectable
    return AdvertisingSettings(
      connectable: connectable, interval: interval(milliseconds: advertiser.device.intervalMs),
      advertisingData: advertisingData, scanResponseData: connectable ? (advertiser.scanResponse ?? []) : [])
  }

  /// True when the device has a scan response that cannot be served (see the type's doc comment).
  public static func dropsScanResponse(_ advertiser: SimulatedAdvertiser) -> Bool {
    advertiser.pduKind == .scannable && advertiser.scanResponse != nil
  }

  /// Milliseconds → 0.625 ms units, clamped to 0x0020…0x4000.
  public static func interval(milliseconds: Int) -> UInt16 {
    UInt16(min(max(milliseconds * 8 / 5, 0x0020), 0x4000))
  }

  /// The device as served on a controller whose public address is `address`: the fleet address is
  /// replaced (a controller advertises and accepts links with its own address), so everything derived
  /// from it — the KBeacon 0x2080 MAC marker, the System frame's MAC — matches what scanners see.
  public static func device(_ device: SimulatedDevice, servedAs address: BluetoothAddress) -> SimulatedDevice {
    var served = device
    served.address = address
    served.addressType = .public
    return served
  }
}
