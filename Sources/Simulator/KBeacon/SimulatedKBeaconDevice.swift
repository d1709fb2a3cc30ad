import BeaconCore
import JSON
import KBeacon

/// The protocol engine of a simulated KBeacon as a pure state machine: FEA1 writes in, FEA2 notifications
/// out (docs/protocols/kbeacon.md §4 framing, §5 auth, §6/§7 JSON, §9 history). The GATT layer hands it every
/// write and sends what it returns; no I/O, no clock (the caller passes the device time).
public struct SimulatedKBeaconDevice: Sendable {
  /// What the device does after a write.
  public struct Output: Equatable, Sendable {
    /// Notifications to send on FEA2, in order.
    public var notifications: [[UInt8]] = []
    /// The device drops the link after sending them (auth failure, power off, reset).
    public var disconnect = false
  }

  public let address: BluetoothAddress
  public let profile: KBeaconDeviceProfile
  public private(set) var configuration: KBeaconConfiguration
  public var history = KBeaconDeviceHistory()
  /// Every command the device executed (ring, reset, power off), for tests and the fleet's event log; a
  /// ring repeated while one is in progress is not executed again (`KBeaconRing`).
  public private(set) var commandLog: [Command] = []
  /// Device clock offset: device UTC = host seconds + offset. Set by auth phase 1 (§5).
  public private(set) var clockOffset: Int64 = 0
  /// Simulated firmware work: while true every request is answered busy (fault injection).
  public var forceBusy = false
  /// Fault injection: answer the next this-many requests with cause 0x10C busy, then behave.
  public var busyRequests = 0
  /// Fault injection: drop the link on the next this-many `cfg` messages, before applying them (the link
  /// lost mid-write: the device keeps its old configuration).
  public var dropLinkOnWrites = 0
  /// Fault injection: reads dropped, writes applied but unacknowledged, a reboot (`KBeaconFaults`).
  public var faults = KBeaconFaults()
  /// Requests begun since start-up (what `faults.rebootAtRequest` counts) and reboots so far.
  public private(set) var requestsBegun = 0
  public private(set) var reboots = 0
  /// How many changes the device has saved: `cfg` messages applied and firmware installed (tests check that
  /// nothing is written twice). Also the freshness of a saved state: a gateway takes another's copy of a
  /// device only when it counts more (`KBeaconSimulation.advertisedDevices()`), so an install counts too.
  public package(set) var configurationWrites = 0
  /// The keys of the last `cfg` message applied, `msg` left out, for the shared write log (`SimulatedWrite`).
  public private(set) var lastWrittenKeys: [String] = []
  private var password: KBeaconPassword
  private var random: SeededGenerator
  private var link = LinkState(mtu: FrameBudget.defaultATTMTU)

  public init(
    address: BluetoothAddress, profile: KBeaconDeviceProfile, password: KBeaconPassword = .factoryDefault,
    seed: UInt64 = 1, configuration: KBeaconConfiguration? = nil
  ) {
    self.address = address
    self.profile = profile
    self.configuration = configuration ?? profile.factoryConfiguration
    self.password = password
    self.random = SeededGenerator(seed: seed ^ address.rawValue)
  }

  /// A DFU installed a new application (docs/protocols/nordic-dfu.md §2): the device reports `version` in `ver` from now
  /// on. It lives in the configuration, so the simulator's state store keeps it like any setting, and it counts
  /// as a saved change (`configurationWrites`): without it, a gateway whose copy of the device was older kept
  /// that copy, and a drift of its own then saved the old `ver` over the other gateway's install.
  public mutating func installFirmware(version: String) {
    configuration.common.fields["ver"] = .string(version)
    configurationWrites += 1
  }

  /// A new link with this ATT MTU; the previous link's state is forgotten.
  public mutating func connected(mtu: Int) { link = LinkState(mtu: mtu) }

  /// The link's MTU changed (an Exchange MTU after the first write).
  public mutating func updateMTU(_ mtu: Int) { link.mtu = mtu }

  public var isAuthenticated: Bool { link.authenticated }

  /// Whether the device is alerting at host time `now` (a `ring` in progress on the current link).
  public func isRinging(at now: UInt32) -> Bool { link.ring.isRinging(at: UInt32(clamping: Int64(now) + clockOffset)) }

  /// The device's password, for saving the simulated fleet's state between runs.
  package var passwordText: String { password.text }

  /// Takes saved state another process wrote (several gateways on one simulated site): configuration,
  /// password and write count, as a restart would.
  package mutating func restore(configuration: KBeaconConfiguration, password: KBeaconPassword, writes: Int) {
    self.configuration = configuration
    self.password = password
    configurationWrites = writes
  }
  /// True while the device owes the app part of an answer.
  public var isBusy: Bool { link.sender != nil || !link.queue.isEmpty || link.assembler.isCollecting }

  /// Handles one FEA1 write. `now` is the host's Unix time (the device keeps its own offset).
  public mutating func receive(_ bytes: [UInt8], now: UInt32) -> Output {
    guard let first = bytes.first, let header = try? FrameHeader(byte: first) else { return Output() }
    switch header.dataType {
    case .auth: return authenticate(bytes, now: now)
    case .jsonReport, .hexReport: return reportAcked(bytes)
    case .json, .hex: return request(bytes, now: now)
    }
  }

  // MARK: auth (§5)

  private mutating func authenticate(_ bytes: [UInt8], now: UInt32) -> Output {
    if link.auth == nil {
      link.auth = DeviceAuthenticator(
        address: address, password: password, random: random.bytes(4),
        useShortForm: link.mtu <= FrameBudget.defaultATTMTU,
        mtu: UInt8(clamping: profile.deviceMTU))
      link.authenticated = false
    }
    switch link.auth!.receive(bytes) {
    case .send(let challenge): return Output(notifications: [challenge])
    case .authenticated(let reply, let clock):
      link.authenticated = true
      link.auth = nil
      if let clock { clockOffset = Int64(clock) - Int64(now) }
      return Output(notifications: [reply])
    case .reject(let reply):
      link.auth = nil
      return Output(notifications: [reply], disconnect: true)
    }
  }

  // MARK: requests (§4.2, §4.3)

  /// An ack answering the whole request now being handled. Its seq is the request's length — the bytes
  /// the device received — and its window 0:
  /// - §4.3 defines seq only for cause 4, as the offset of the next fragment to send, i.e. the bytes
  ///   received so far; a whole request has been received up to its length, so the same count is its
  ///   length [I]. (The device-side `RequestAssembler` asks for fragments by that count.)
  /// - KKM's SDKs (A2 `configHandleDownCmdAck`, I2 the same) read seq only for cause 4 and ignore it
  ///   otherwise, as does our client (`RequestExchange.handleAck`), so any value works with them.
  /// - HAR, used on real BCPro tags, resends the request from offset seq whenever an ack without a JSON
  ///   body has seq below the request length, and stops once seq ≥ length [C3]. It works on real tags,
  ///   so real firmware puts at least the length there; with 0 HAR resends its `ring` until it times out.
  /// - window: real BCPro sends 0 (§4.3, HAR) [C3].
  /// Acks that refuse a request at its first frame (busy, not authenticated) took none of it: seq 0 [I].
  func reply(_ cause: DeviceCause, _ type: FrameHeader.DataType = .json, payload: [UInt8] = []) -> DeviceAck {
    DeviceAck(dataType: type, seq: link.received, cause: cause, payload: payload)
  }

  private var budget: Int { FrameBudget.payloadBytes(linkMTU: link.mtu, reportedMTU: profile.deviceMTU) }

  private mutating func request(_ bytes: [UInt8], now: UInt32) -> Output {
    guard let frame = try? RequestFrame(bytes: bytes) else { return Output() }
    let starts = frame.position == .start || frame.position == .single
    if starts {
      requestsBegun += 1
      if requestsBegun == faults.rebootAtRequest { return reboot() }
    }
    if starts, forceBusy || busyRequests > 0 || link.sender != nil || !link.queue.isEmpty || link.assembler.isCollecting
    {
      if busyRequests > 0 { busyRequests -= 1 }
      return Output(notifications: [DeviceAck(dataType: frame.dataType, cause: .busy).bytes])
    }
    guard link.authenticated else {
      // Requests before auth: the spec names no cause; we answer "command execution failed" [I].
      return Output(notifications: [DeviceAck(dataType: frame.dataType, cause: .executionFailed).bytes])
    }
    switch link.assembler.take(frame) {
    case .askForNext(let ack), .reject(let ack): return Output(notifications: [ack.bytes])
    case .complete(let type, let message):
      let deviceUTC = UInt32(clamping: Int64(now) + clockOffset)
      link.received = UInt16(clamping: message.count)
      let answer = type == .json ? handleJSON(message, deviceUTC: deviceUTC) : handleHex(message, deviceUTC: deviceUTC)
      link.queue = answer.items
      var out = drain()
      out.disconnect = answer.disconnect
      return out
    }
  }

  /// The device resets (`KBeaconFaults.rebootAtRequest`): RAM state goes, flash stays, the link drops.
  private mutating func reboot() -> Output {
    reboots += 1
    faults.rebootAtRequest = nil
    clockOffset = 0
    link = LinkState(mtu: FrameBudget.defaultATTMTU)
    return Output(disconnect: true)
  }

  /// Sends queued frames until a report fragment needs the app's ack.
  private mutating func drain() -> Output {
    var out = Output()
    while link.sender == nil, !link.queue.isEmpty {
      switch link.queue.removeFirst() {
      case .frame(let bytes): out.notifications.append(bytes)
      case .report(let message, let type):
        var sender = ReportSender(message: message, dataType: type, budget: budget)
        out.notifications.append(sender.start())
        link.sender = sender
      }
    }
    return out
  }

  private mutating func reportAcked(_ bytes: [UInt8]) -> Output {
    guard var sender = link.sender, let ack = try? ReportAck(bytes: bytes) else { return Output() }
    switch sender.receive(ack) {
    case .send(let next):
      link.sender = sender
      return Output(notifications: [next])
    case .done:
      link.sender = nil
      return drain()
    case .failed:
      link.sender = nil
      link.queue = []
      return Output()
    }
  }

  struct Answer {
    var items: [Outgoing]
    var disconnect = false
  }

  /// A JSON answer: inline on a cause-0 ack when it fits in one notification, else cause 5 + a report.
  private func jsonAnswer(_ object: JSONObject) -> Answer {
    let text = JSONWriter.bytes(.object(object))
    if fitsOnAck(text) { return Answer(items: [.frame(reply(.success, payload: text).bytes)]) }
    return Answer(items: [.frame(reply(.commandReceived).bytes), .report(text, .jsonReport)])
  }

  /// Whether an answer rides inline on one ack notification: ATT MTU − 3 bytes of notification value minus
  /// the 7-byte ack (header + seq + window + cause).
  func fitsOnAck(_ payload: [UInt8]) -> Bool { payload.count <= link.mtu - 3 - 7 }

  func ack(_ cause: DeviceCause, _ type: FrameHeader.DataType = .json) -> Answer {
    Answer(items: [.frame(reply(cause, type).bytes)])
  }

  private mutating func handleJSON(_ message: [UInt8], deviceUTC: UInt32) -> Answer {
    guard let object = (try? JSONParser.parse(message))?.objectValue, let msg = object["msg"]?.stringValue else {
      return ack(.jsonParseFailed)
    }
    switch msg {
    case "getPara":
      if faults.dropLinkOnReads > 0 {
        faults.dropLinkOnReads -= 1
        return Answer(items: [], disconnect: true)
      }
      switch KBeaconDeviceReads.response(to: object, config: configuration) {
      case .success(let response): return jsonAnswer(response)
      case .failure(let cause): return ack(cause)
      }
    case "cfg":
      if dropLinkOnWrites > 0 {
        dropLinkOnWrites -= 1
        return Answer(items: [], disconnect: true)
      }
      switch KBeaconDeviceWrites.apply(object, to: configuration, profile: profile) {
      case .success(let outcome):
        configurationWrites += 1
        lastWrittenKeys = object.keys.filter { $0 != "msg" }
        configuration = outcome.configuration
        if let pwd = outcome.newPassword, let newPassword = try? KBeaconPassword(pwd) { password = newPassword }
        if faults.dropLinkAfterWrites > 0 {
          faults.dropLinkAfterWrites -= 1
          return Answer(items: [], disconnect: true)
        }
        return ack(.success)
      case .failure(let cause): return ack(cause)
      }
    default:
      guard let command = Command(json: object), isSupported(command) else { return ack(.unknownMessage) }
      if case .ring(let milliseconds, let type, _, _) = command,
        link.ring.receive(milliseconds: milliseconds, type: type, generation: profile.generation, at: deviceUTC)
          == .alreadyRinging
      {
        return ack(.success)
      }
      commandLog.append(command)
      switch command {
      case .ring: return ack(.success)
      case .factoryReset, .legacyReset:
        configuration = profile.factoryConfiguration
        return ack(.success)
      case .powerOff:
        guard profile.capabilities.contains(.button) else { return ack(.featureUnsupported) }
        return Answer(items: ack(.success).items, disconnect: true)
      }
    }
  }

  private func isSupported(_ command: Command) -> Bool {
    switch command {
    case .ring: true
    case .factoryReset, .powerOff: profile.generation == .pro
    case .legacyReset: profile.generation == .legacy
    }
  }
}
