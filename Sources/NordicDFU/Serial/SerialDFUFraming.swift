/// Secure DFU over UART (docs/protocols/nordic-dfu.md §4): every request and response is one SLIP frame; object data
/// travels as op 0x08 frames; Ping (0x09) and Get MTU (0x07) are serial-only. This type holds the
/// transport's arithmetic so both our client and the simulated target use the same rules.
public enum SerialDFUFraming {
  /// The MTU the SDK 15.3 UART bootloader reports: 2·(64 + 1) + 1 = 131 (`UART_SLIP_MTU`).
  public static let sdkMTU: UInt16 = 131

  /// Data bytes per 0x08 frame for a reported MTU: (MTU − 1) / 2 − 1 (what nrfutil writes; 64 for 131),
  /// so that the fully escaped frame — opcode, data, END — never exceeds the MTU.
  public static func dataBytesPerWrite(mtu: UInt16) -> Int { (Int(mtu) - 1) / 2 - 1 }

  /// The SLIP frame of a request.
  public static func frame(_ request: ControlPointRequest) -> [UInt8] { SLIP.encode(request.bytes) }
}
