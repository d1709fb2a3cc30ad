import BeaconCore

/// What a served device (`ServedDevice`) puts on a real controller for one advertising PDU of its
/// `SimulatedAdvertiser`: the HCI advertising settings (Core v5.4 Vol 4 Part E §7.8.5–§7.8.8). Pure.
///
/// Choices [I]:
/// - The PDU type follows the device (`SimulatedAdvertiser.pduKind`): ADV_IND when connectable,
///   ADV_SCAN_IND when not but with a scan response (a named iBeacon, a blukii module), else
///   ADV_NONCONN_IND (`AdvertisingSettings.pdu`).
/// - The interval is the device's `intervalMs` in 0.625 ms units, clamped to the legacy range
///   0x0020…0x4000 (20 ms … 10.24 s).
/// - A device on a random address is advertised from it (`AdvertisingSettings.randomAddress`).
public enum ServedAdvertising {
  /// The settings for one PDU's AD bytes.
  public static func settings(advertisingData: [UInt8], of advertiser: SimulatedAdvertiser) -> AdvertisingSettings {
    let connectable = advertiser.pduKind == .connectable
    let device = advertiser.device
    return AdvertisingSettings(
      connectable: connectable, interval: interval(milliseconds: device.intervalMs),
      advertisingData: advertisingData,
      scanResponseData: advertiser.pduKind == .nonConnectable ? [] : (advertiser.scanResponse ?? []),
      randomAddress: device.addressType == .random ? device.address : nil)
  }

  /// Milliseconds → 0.625 ms units, clamped to 0x0020…0x4000.
  public static func interval(milliseconds: Int) -> UInt16 {
    UInt16(min(max(milliseconds * 8 / 5, 0x0020), 0x4000))
  }

  /// The device as served on a controller whose public address is `address`. A device on a public address
  /// takes the controller's (a controller's public address cannot change), so everything derived from it —
  /// the KBeacon 0x2080 MAC marker, the System frame's MAC — matches what scanners see. A device on a
  /// random address keeps its own [I]: the controller advertises it with LE Set Random Address and own
  /// address type random (`settings`), so a KKM tag's static random address (docs/protocols/kbeacon.md §14) is
  /// served as it is, and clients must connect to it as a random address.
  public static func device(_ device: SimulatedDevice, servedAs address: BluetoothAddress) -> SimulatedDevice {
    guard device.addressType == .public else { return device }
    var served = device
    served.address = address
    return served
  }
}
