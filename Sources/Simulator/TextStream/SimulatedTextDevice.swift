import BeaconCore
import TextStream

/// A simulated text-stream device behind its GATT server: the profile's service with Rx (Write,
/// and Write Without Response for the Nordic UART Service) and Tx (Notify), plus the profile's extra
/// characteristics (ACKme SetMode: Write; Zhaga Event: Notify), which it never uses.
///
/// Behaviour, as a real virtual-serial device:
/// - Bytes written to Rx are gathered into lines; CR, LF or CRLF ends a line, so a command may come in
///   any number of writes (fragments).
/// - Each complete line is answered by its command set (`SimulatedReaderCommands` or
///   `SimulatedATCommands`). The answer goes out after the Write Response, `answerDelay` later, cut into
///   notifications of min(profile packet size, ATT_MTU − 3) bytes, `fragmentGap` apart. It has no end
///   marker besides its CRLF: the client ends it by silence.
/// - While an answer is still going out, a write is refused with «Procedure Already in Progress» (0xFE),
///   the busy refusal the client reports as `TextStreamError.deviceBusy`; with `alwaysBusy` every write is.
/// - State (an AT device's settings) lives here, across links; `onChange` saves it (the simulator's flash).
///   Each set command it accepts goes to the shared write log first (`onWrite`, `SimulatedWrite.what` `at`,
///   keyed by the setting it names, whether or not the value changed: a set sent twice shows twice); one the
///   log could not record is undone and the link dropped unanswered, as a KBeacon does
///   (`SimulatedKBeacon.record`).
/// - With a `greeting`, the device notifies it (plus CRLF) as soon as a client turns Tx notifications on, as
///   a module that reports `+EVENT:CONNECTED` does; with a `lateFragment`, every answer is followed
///   `lateFragmentDelay` after its last notification by that text (plus CRLF), an answer's tail later than
///   the client's inter-fragment timeout. The device takes new commands meanwhile. The delay runs on
///   `lateFragmentClock` (the wall clock unless given), counted from just before the last notification is sent:
///   a test that holds a `ManualClock` there sends the tail when it chooses, by moving the clock past it.
public actor SimulatedTextDevice {
  public enum Commands: Sendable {
    case reader(SimulatedReaderCommands)
    case at(SimulatedATCommands)
  }

  public nonisolated let address: BluetoothAddress
  public nonisolated let profile: TextStreamProfile
  public private(set) var commands: Commands
  public nonisolated let answerDelay: Duration
  public nonisolated let fragmentGap: Duration
  public nonisolated let alwaysBusy: Bool
  public nonisolated let greeting: String?
  public nonisolated let lateFragment: (text: String, delay: Duration)?
  public nonisolated let lateFragmentClock: any Clock<Duration>
  /// Every command line received, in order (tests).
  public private(set) var received: [String] = []
  /// Writes refused busy so far.
  public private(set) var busyRefusals = 0
  /// Answers still to be cut by a link drop halfway (`TextStreamSection.dropLinkMidAnswer`).
  private var dropsLeft: Int
  private var line: [UInt8] = []
  private var answering = false
  /// Which write made the device busy (`answering`): an ended answer clears the flag only if it is still its own.
  private var busyToken = 0
  private let onChange: (@Sendable () async -> Void)?
  private let onWrite: (@Sendable (SimulatedWrite) async -> Bool)?
  /// The link that wrote last (the one whose end clears `answering`: its answer may never go out), and the
  /// device's links so far (the write log's `link`).
  private var currentLink: ObjectIdentifier?
  private var links = 0

  public init(
    address: BluetoothAddress, profile: TextStreamProfile, commands: Commands, answerDelay: Duration,
    fragmentGap: Duration, alwaysBusy: Bool = false, dropLinkMidAnswers: Int = 0, greeting: String? = nil,
    lateFragment: (text: String, delay: Duration)? = nil, lateFragmentClock: any Clock<Duration> = ContinuousClock(),
    onChange: (@Sendable () async -> Void)? = nil, onWrite: (@Sendable (SimulatedWrite) async -> Bool)? = nil
  ) {
    self.lateFragmentClock = lateFragmentClock
    self.onWrite = onWrite
    self.dropsLeft = dropLinkMidAnswers
    self.greeting = greeting
    self.lateFragment = lateFragment
    self.address = address
    self.profile = profile
    self.commands = commands
    self.answerDelay = answerDelay
    self.fragmentGap = fragmentGap
    self.alwaysBusy = alwaysBusy
    self.onChange = onChange
  }

  /// The AT settings, for a `nordicUART` device.
  public var settings: SimulatedATCommands? {
    if case .at(let s) = commands { return s }
    return nil
  }

  public nonisolated func makeServer(name: String) -> GATTServer {
    let device = self
    var tx = SimulatedCharacteristic(uuid: profile.tx, properties: [.notify])
    if let greeting {
      let (uuid, bytes) = (profile.tx, Array((greeting + "\r\n").utf8))
      tx.onSubscribe = { connection in _ = await connection.notify(uuid, bytes) }
    }
    var characteristics = [
      SimulatedCharacteristic(
        uuid: profile.rx, properties: profile.packetSize == nil ? [.write, .writeWithoutResponse] : [.write]
      ) { write in try await device.receive(write) },
      tx,
    ]
    for extra in profile.extras {
      characteristics.append(
        SimulatedCharacteristic(uuid: extra.uuid, properties: extra.role == .event ? [.notify] : [.write, .read]))
    }
    let service = SimulatedService(uuid: profile.service, characteristics: characteristics)
    return GATTServer(
      services: GenericDeviceDatabase.standardServices(name: name) + [service],
      onDisconnect: { connection in await device.linkEnded(connection) })
  }

  func receive(_ write: GATTWrite) async throws {
    if alwaysBusy || answering {
      busyRefusals += 1
      throw ATTErrorCode.procedureAlreadyInProgress
    }
    // Busy from here: a write that reaches the actor while this one waits on the write log or the save is refused,
    // as one while the answer goes out is (each works from the settings as they are).
    answering = true
    busyToken += 1
    let token = busyToken
    if currentLink != ObjectIdentifier(write.connection) {
      currentLink = ObjectIdentifier(write.connection)
      links += 1
    }
    line += write.value
    var answer = ""
    var changed = false
    while let end = line.firstIndex(where: { $0 == 0x0D || $0 == 0x0A }) {
      let text = String(decoding: line[..<end], as: UTF8.self)
      line.removeSubrange(...end)
      guard !text.isEmpty else { continue }
      received.append(text)
      switch commands {
      case .reader(let reader):
        answer += reader.answer(text)
      case .at(var at):
        let before = at
        let reply = at.answer(text)
        answer += reply
        guard reply == "OK\r\n", let key = SimulatedATCommands.setting(of: text) else { continue }
        guard await onWrite?(SimulatedWrite(link: links, address: address.description, what: "at", keys: [key])) ?? true
        else {
          // Not in the log, so not done: the setting stays as it was and the link drops unanswered (an earlier
          // set of this write, logged, is kept and saved).
          line = []
          answering = false
          if changed, let onChange { await onChange() }
          await write.connection.disconnect()
          return
        }
        changed = changed || at.writes != before.writes
        commands = .at(at)
      }
    }
    guard !answer.isEmpty else {
      answering = false
      return
    }
    if changed, let onChange { await onChange() }
    let connection = write.connection
    // Started after the Write Response goes out, in its own task: the link goes on serving requests while
    // the answer trickles out (so a write meanwhile meets the busy refusal).
    let bytes = Array(answer.utf8)
    await connection.afterResponse { Task { await self.send(bytes, on: connection, token: token) } }
  }

  private func send(_ answer: [UInt8], on connection: GATTServerConnection, token: Int) async {
    // A later write (on a new link, after this one's ended) made the device busy for itself: not this answer's.
    defer { if busyToken == token { answering = false } }
    let size = profile.fragmentSize(attMTU: await connection.mtu)
    if answerDelay > .zero { try? await Task.sleep(for: answerDelay) }
    var answer = answer
    let cut = dropsLeft > 0
    if cut {
      dropsLeft -= 1
      answer = Array(answer.prefix(answer.count / 2))
    }
    var lateTailDue: (@Sendable () async -> Void)?
    for (index, start) in stride(from: 0, to: answer.count, by: size).enumerated() {
      if index > 0, fragmentGap > .zero { try? await Task.sleep(for: fragmentGap) }
      let end = min(answer.count, start + size)
      // Its time is taken before the last notification goes out, so a client that has the whole answer
      // finds the tail's moment already fixed.
      if end == answer.count, !cut, let lateFragment {
        lateTailDue = Self.wait(on: lateFragmentClock, for: lateFragment.delay)
      }
      guard await connection.notify(profile.tx, Array(answer[start..<end])) else { return }
    }
    if cut {
      await connection.disconnect()
      return
    }
    if let lateFragment, let lateTailDue {
      let (uuid, bytes) = (profile.tx, Array((lateFragment.text + "\r\n").utf8))
      Task {
        await lateTailDue()
        _ = await connection.notify(uuid, bytes)
      }
    }
  }

  /// Waits on `clock` until `delay` after now (now: when this is called, not when the wait starts).
  private static func wait<C: Clock<Duration>>(on clock: C, for delay: Duration) -> @Sendable () async -> Void {
    let due = clock.now.advanced(by: delay)
    return { try? await clock.sleep(until: due, tolerance: nil) }
  }

  /// A link ended: a half-received line is dropped.
  func linkEnded(_ connection: GATTServerConnection) {
    line = []
    // An answer cut off with its link (its send may never run: the link ended before the Write Response went
    // out) must not leave the device busy for every later link. A new connection object may reuse the ended
    // one's identity: the next link is counted as new.
    guard currentLink == ObjectIdentifier(connection) else { return }
    answering = false
    currentLink = nil
  }
}
