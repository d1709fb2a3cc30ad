/// KKM System frame 0x22 (docs/protocols/kbeacon.md §10.4), as KKM manufacturer data or Eddystone service data:
/// `[22][model u8][battery % u8][MAC 6, printed order][fw major][fw minor]` (at least 11 bytes; extra bytes
/// are ignored).
public struct KKMSystemFrame: Sendable, Hashable, Codable {
  /// KKM model code.
  public var model: UInt8
  public var batteryPercent: UInt8
  /// The device's MAC as it advertises it (useful where the OS hides addresses).
  public var macAddress: BluetoothAddress
  public var firmwareMajor: UInt8
  public var firmwareMinor: UInt8

  public init(
    model: UInt8, batteryPercent: UInt8, macAddress: BluetoothAddress, firmwareMajor: UInt8, firmwareMinor: UInt8
  ) {
    self.model = model
    self.batteryPercent = batteryPercent
    self.macAddress = macAddress
    self.firmwareMajor = firmwareMajor
    self.firmwareMinor = firmwareMinor
  }

  /// "major.minor".
  public var firmwareVersion: String { "\(firmwareMajor).\(firmwareMinor)" }

  /// `payload` starts at the frame type 0x22.
  public init(payload: RawBytes) throws(FrameDecodingError) {
    try FrameDecodingError.require(payload, 11)
    model = payload[1]
    batteryPercent = payload[2]
    var mac: UInt64 = 0
    for i in 3..<9 { mac = mac << 8 | UInt64(payload[i]) }
    macAddress = BluetoothAddress(rawValue: mac)
    firmwareMajor = payload[9]
    firmwareMinor = payload[10]
  }

  public var frameBytes: [UInt8] { [0x22, model, batteryPercent] + macAddress.bytes + [firmwareMajor, firmwareMinor] }

  /// As KKM manufacturer data (`53 0A 22 …`).
  public var manufacturerADStructure: [UInt8] { ADEncoder.manufacturerData(BeaconConstants.kkmCompanyID, frameBytes) }
}
