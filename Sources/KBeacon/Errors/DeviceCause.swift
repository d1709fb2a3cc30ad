/// A device ack's `cause` field (docs/protocols/kbeacon.md §4.3, §12). Causes 0, 4, 5, 6 and 7 steer the exchange;
/// every other value is a device error code, surfaced by the SDKs as the `subErrorCode` of `CfgFailed`.
public struct DeviceCause: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
  public let rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public init(_ rawValue: UInt16) { self.rawValue = rawValue }

  // MARK: flow causes (§4.3)
  /// `BEACON_ACK_SUCCESS`: write/command done; a read's short response rides after the ack head.
  public static let success = DeviceCause(0x0000)
  /// `BEACON_ACK_EXPECT_NEXT`: send the next request fragment from the ack's `seq`.
  public static let expectNext = DeviceCause(0x0004)
  /// `BEACON_ACK_CAUSE_CMD_RCV`: request received, the response follows as report frames.
  public static let commandReceived = DeviceCause(0x0005)
  /// `BEACON_ACK_EXE_CMD_CMP`: a HEX command has finished; the collected HEX messages are the response.
  public static let commandComplete = DeviceCause(0x0006)
  /// `BEACON_ACK_EXE_CMD_UN_CMP`: one HEX message done, more follow (v2).
  public static let commandIncomplete = DeviceCause(0x0007)

  // MARK: device error codes (§12, names after A2 `KBErrorCode`)
  public static let authNotSupported = DeviceCause(0x0102)
  public static let invalidParameter = DeviceCause(0x0103)
  public static let featureUnsupported = DeviceCause(0x0104)
  public static let jsonParseFailed = DeviceCause(0x0105)
  public static let missingParameter = DeviceCause(0x0106)
  public static let executionFailed = DeviceCause(0x0107)
  public static let triggerSlotMissing = DeviceCause(0x0108)
  public static let slotUsedByTrigger = DeviceCause(0x0109)
  public static let advTypeAlreadyUsed = DeviceCause(0x010A)
  public static let triggerTypeAlreadyEnabled = DeviceCause(0x010B)
  public static let busy = DeviceCause(0x010C)
  public static let enableSensorFailed = DeviceCause(0x0116)
  public static let triggerNotSupported = DeviceCause(0x0117)
  public static let sensorNotSupported = DeviceCause(0x0118)
  public static let unknownMessage = DeviceCause(0x0119)

  /// The spec's meaning of each known cause.
  public static let meanings: [UInt16: String] = [
    0x0000: "success", 0x0004: "expect next fragment", 0x0005: "command received, report follows",
    0x0006: "command complete", 0x0007: "message complete, more follow",
    0x0102: "authentication not supported", 0x0103: "input parameter invalid",
    0x0104: "feature unsupported", 0x0105: "JSON parse failed", 0x0106: "required parameter missing",
    0x0107: "command execution failed", 0x0108: "trigger's slot does not exist",
    0x0109: "slot in use by a trigger (remove the trigger first)", 0x010A: "advertisement type may exist only once",
    0x010B: "trigger type already enabled", 0x010C: "command busy", 0x0116: "enabling sensor failed",
    0x0117: "trigger not supported", 0x0118: "sensor not supported", 0x0119: "unknown message",
  ]

  /// True for the causes that only steer an exchange (0, 4, 5, 6, 7).
  public var isFlowControl: Bool { [0, 4, 5, 6, 7].contains(rawValue) }

  public var description: String {
    let code = "0x" + String(rawValue, radix: 16, uppercase: true)
    return Self.meanings[rawValue].map { "\($0) (\(code))" } ?? "device error \(code)"
  }
}
