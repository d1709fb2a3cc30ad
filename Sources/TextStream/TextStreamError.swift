/// Why a text-stream command produced no answer (docs/protocols/text-stream.md). Each case names the library's event
/// it stands for where there is one.
public enum TextStreamError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A fragment's Write Response did not come in time (`TxRxDeviceDataSendTimeout`). `fragment` counts
  /// from 1.
  case sendTimeout(fragment: Int, of: Int, after: Duration)
  /// The device rejected a fragment's write (`TxRxDeviceDataSendError`).
  case writeRejected(fragment: Int, detail: String)
  /// The device refused the write because it is still busy with an earlier command: an ATT Error Response
  /// with «Procedure Already in Progress» (0xFE) [choice: the code a busy text-stream device answers with
  /// in this project's simulator; the Tertium libraries define none].
  case deviceBusy(detail: String)
  /// Nothing was notified within the first-packet timeout (`TxRxDeviceDataReceiveError`, "an empty
  /// buffer").
  case receiveTimeout(after: Duration)
  /// A command is already in flight on this device (`ERROR_DEVICE_SENDING_DATA_ALREADY`): one at a time.
  case commandInFlight
  /// The command and its terminator are empty: nothing to send.
  case emptyCommand
  /// The device has none of the known text-stream services, or lacks one of the profile's characteristics.
  case notTextStream(String)
  /// The link ended during the command.
  case linkLost(String)
  /// The task waiting for the answer was cancelled.
  case cancelled

  public var description: String {
    switch self {
    case .sendTimeout(let fragment, let count, let after):
      "fragment \(fragment) of \(count) was not acknowledged within \(after.textStreamSeconds)"
    case .writeRejected(let fragment, let detail): "the device rejected fragment \(fragment): \(detail)"
    case .deviceBusy(let detail): "the device is busy with an earlier command (\(detail))"
    case .receiveTimeout(let after): "no answer within \(after.textStreamSeconds)"
    case .commandInFlight: "a command is already in flight on this device"
    case .emptyCommand: "empty command"
    case .notTextStream(let detail): "not a text-stream device: \(detail)"
    case .linkLost(let detail): "link lost during the command: \(detail)"
    case .cancelled: "cancelled"
    }
  }

  /// A stable name for `--json` output and journals.
  public var code: String {
    switch self {
    case .sendTimeout: "send-timeout"
    case .writeRejected: "write-rejected"
    case .deviceBusy: "device-busy"
    case .receiveTimeout: "receive-timeout"
    case .commandInFlight: "command-in-flight"
    case .emptyCommand: "empty-command"
    case .notTextStream: "not-text-stream"
    case .linkLost: "link-lost"
    case .cancelled: "cancelled"
    }
  }
}

extension Duration {
  /// `2 s`, `0.2 s`: how the timeouts read in messages.
  var textStreamSeconds: String {
    let ms = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    if ms % 1000 == 0 { return "\(ms / 1000) s" }
    var text = String(Double(ms) / 1000)
    while text.hasSuffix("0") { text.removeLast() }
    return text + " s"
  }
}
