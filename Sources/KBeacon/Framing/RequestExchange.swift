/// The app side of one request/response on FEA1/FEA2 (docs/protocols/kbeacon.md §4.2–§4.4), as a pure state
/// machine: `start()` gives the first frame to write; each notification goes to `receive(_:)`, which says
/// what to write next and when the exchange is over. One exchange at a time per link (§4.5).
///
/// Outcomes: a JSON request finishes with zero or one JSON message (cause 0 with or without inline payload,
/// or a report ending in END/SINGLE); a HEX request finishes with every HEX message collected when the
/// device acks cause 6 (or 0).
public struct RequestExchange: Sendable {
  public enum Kind: Sendable { case json, hex }

  public struct Response: Equatable, Sendable {
    /// JSON: the one response message (empty list for a plain success). HEX: every message in order.
    public var messages: [[UInt8]]
  }

  public enum Action: Equatable, Sendable {
    /// Write this frame to FEA1 and keep waiting.
    case send([UInt8])
    /// Nothing to write; keep waiting. `restartTimer` is true when the device said more follows (cause 7).
    case wait(restartTimer: Bool)
    /// Write `ack` (if any), then the exchange is over.
    case finish(Response, ack: [UInt8]?)
    /// The exchange failed; write `ack` (an error report ack) if given.
    case fail(KBeaconError, ack: [UInt8]?)
  }

  public let kind: Kind
  public let message: [UInt8]
  public let budget: Int
  private var assembler = ReportAssembler()
  private var hexMessages: [[UInt8]] = []
  private var done = false

  private var requestType: FrameHeader.DataType { kind == .json ? .json : .hex }
  private var reportType: FrameHeader.DataType { kind == .json ? .jsonReport : .hexReport }

  /// - Parameter budget: payload bytes per frame (`FrameBudget.payloadBytes`).
  public init(kind: Kind, message: [UInt8], budget: Int) {
    self.kind = kind
    self.message = message
    self.budget = max(1, budget)
  }

  /// The first frame: SINGLE when the message fits, else START at offset 0.
  public func start() -> [UInt8] {
    RequestFrame.fragment(of: message, dataType: requestType, from: 0, budget: budget)?.bytes
      ?? RequestFrame(dataType: requestType, position: .single, offset: 0, payload: []).bytes
  }

  public mutating func receive(_ bytes: [UInt8]) -> Action {
    guard !done else { return .fail(.stateError("frame after the exchange ended"), ack: nil) }
    let action: Action
    do {
      let header = try FrameHeader(byte: bytes.first ?? 0xFF)
      switch header.dataType {
      case requestType: action = try handleAck(DeviceAck(bytes: bytes))
      case reportType: action = try handleReport(ReportFragment(bytes: bytes))
      default: throw KBeaconError.malformedFrame("unexpected \(header.dataType) frame during a \(kind) request")
      }
    } catch let error as KBeaconError {
      action = .fail(error, ack: nil)
    } catch {
      action = .fail(.malformedFrame("\(error)"), ack: nil)
    }
    switch action {
    case .finish, .fail: done = true
    default: break
    }
    return action
  }

  private mutating func handleAck(_ ack: DeviceAck) throws(KBeaconError) -> Action {
    switch ack.cause {
    case .success:
      if kind == .json { return .finish(Response(messages: ack.payload.isEmpty ? [] : [ack.payload]), ack: nil) }
      if !ack.payload.isEmpty { hexMessages.append(ack.payload) }
      return .finish(Response(messages: hexMessages), ack: nil)
    case .expectNext:
      guard Int(ack.seq) > 0,
        let next = RequestFrame.fragment(of: message, dataType: requestType, from: Int(ack.seq), budget: budget)
      else { throw .malformedFrame("device asked for offset \(ack.seq) of a \(message.count)-byte message") }
      return .send(next.bytes)
    case .commandReceived:
      guard !ack.payload.isEmpty else { return .wait(restartTimer: true) }
      try assembler.seed(ack.payload)
      return .send(ReportAck(dataType: reportType, receivedLength: UInt16(assembler.buffer.count)).bytes)
    case .commandComplete where kind == .hex:
      return .finish(Response(messages: hexMessages), ack: nil)
    case .commandIncomplete where kind == .hex:
      return .wait(restartTimer: true)
    case .busy:
      return .fail(.busy, ack: nil)
    default:
      return .fail(.deviceRejected(ack.cause), ack: nil)
    }
  }

  private mutating func handleReport(_ fragment: ReportFragment) throws(KBeaconError) -> Action {
    let step: ReportAssembler.Step
    do {
      step = try assembler.take(position: fragment.position, offset: fragment.offset, data: fragment.data)
    } catch {
      let nack = ReportAck(
        dataType: reportType, receivedLength: UInt16(assembler.buffer.count), errorCause: ReportAck.causeSequenceError)
      return .fail(error, ack: nack.bytes)
    }
    switch step {
    case .partial(let held):
      return .send(ReportAck(dataType: reportType, receivedLength: UInt16(held)).bytes)
    case .complete(let whole):
      let ack = ReportAck(dataType: reportType, receivedLength: UInt16(whole.count)).bytes
      if kind == .json { return .finish(Response(messages: [whole]), ack: ack) }
      hexMessages.append(whole)
      return .send(ack)
    }
  }
}
