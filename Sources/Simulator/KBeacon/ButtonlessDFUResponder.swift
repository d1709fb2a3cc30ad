/// The application-side Nordic buttonless DFU characteristic (8EC90003, Write + Indicate), as a pure state
/// machine (docs/protocols/nordic-dfu.md §2.2): `01` enter bootloader, `02 len name` set the bootloader's advertising
/// name (≤ 20 bytes); every request is answered by the indication `20 <op> <status>`. An SDK 13 service
/// (`acceptsName` false) knows only `01` and answers `02` with "op code not supported" (`20 02 02`).
public struct ButtonlessDFUResponder: Sendable, Hashable {
  /// Response codes of docs/protocols/nordic-dfu.md §2.2.
  public enum Status: UInt8, Sendable {
    case success = 0x01
    case opCodeNotSupported = 0x02
    case operationFailed = 0x04
    case invalidAdvertisingName = 0x05
    case busy = 0x06
    case notBonded = 0x07
  }

  public static let responseCode: UInt8 = 0x20
  public static let enterBootloader: UInt8 = 0x01
  public static let setName: UInt8 = 0x02
  /// `nrf_dfu_adv_name_t` holds 20 bytes.
  public static let maximumNameLength = 20

  public struct Reply: Equatable, Sendable {
    /// The indication to send.
    public var indication: [UInt8]
    /// True after `01`: jump to the bootloader (drop the link) once the indication went out.
    public var enterBootloader: Bool
  }

  /// The name the bootloader will advertise, if the app set one.
  public private(set) var bootloaderName: String?

  /// False for an SDK 13 buttonless service, which has no Set Advertisement Name.
  public let acceptsName: Bool

  public init(acceptsName: Bool = true) { self.acceptsName = acceptsName }

  public mutating func receive(_ bytes: [UInt8]) -> Reply {
    guard let op = bytes.first else {
      return Reply(indication: [Self.responseCode, 0x00, Status.opCodeNotSupported.rawValue], enterBootloader: false)
    }
    func reply(_ status: Status, enter: Bool = false) -> Reply {
      Reply(indication: [Self.responseCode, op, status.rawValue], enterBootloader: enter)
    }
    switch op {
    case Self.enterBootloader:
      return reply(.success, enter: true)
    case Self.setName where !acceptsName:
      return reply(.opCodeNotSupported)
    case Self.setName:
      guard bytes.count >= 2 else { return reply(.invalidAdvertisingName) }
      let length = Int(bytes[1])
      let name = bytes.dropFirst(2)
      guard length == name.count, (1...Self.maximumNameLength).contains(length) else {
        return reply(.invalidAdvertisingName)
      }
      bootloaderName = String(decoding: name, as: UTF8.self)
      return reply(.success)
    default:
      return reply(.opCodeNotSupported)
    }
  }
}
