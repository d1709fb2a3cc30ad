import ArgumentParser
import BeaconCore
import Foundation
import TextStream

/// `beacon-provision txrx ADDR COMMAND…`: sends text commands to a text-stream ("virtual serial") device —
/// a Tertium TxRx reader, a Zhaga/ACKme module, a Nordic UART AT-command device — and prints each answer
/// (docs/protocols/text-stream.md). `--interactive` opens a line console instead (`TxrxConsole`).
///
/// Output: with one command, its answer's lines; with several, each answer under a `> COMMAND` line. A
/// command that fails prints `Error: …` (on standard error) and the rest still run; the exit status is then
/// 1. `--json`: one array of `{"command", "answer", "lines", "notifications"}` or `{"command", "error":
/// {"code", "message"}}`, each with `"unsolicited"`: the lines the device sent outside any answer since the
/// previous command (a greeting on connecting, an answer's tail later than --timeout-next), and the last
/// with `"unsolicitedAfter"`: those within --timeout-next after its answer. Without --json they print as
/// `(unsolicited) …` where they came, never inside an answer. Device text is printed with its
/// control characters escaped (`TerminalText`). `-v` logs the end of each answer (`answered bytes=… command=1
/// notifications=…`, or `not answered command=1 error=…`) by the command's place on the line, never its text,
/// which may carry a device's password.
struct TxrxCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "txrx",
    abstract: "Send text commands to a text-stream device (Tertium TxRx, Nordic UART) and print the answers.",
    discussion: """
      The device's profile is detected from its GATT services after connecting: \
      \(TextStreamProfile.known.map(\.id).joined(separator: ", ")); --profile forces one. Each command gets \
      the profile's terminator (CRLF; CR for zhaga), is written in fragments of the profile's packet size \
      (at most ATT MTU − 3), each acknowledged, and its answer is every notification until the device has \
      been silent for --timeout-next seconds (200 ms), the first awaited for --timeout-first seconds (2 s). \
      One command is in flight at a time; each after the first is written once the device has been silent \
      for twice --timeout-next, so a late tail of the answer before is shown as unsolicited, not inside the \
      next answer.

      A device is named by its address. Tertium's apps name devices "<name>_<n>" by discovery order \
      ("indexed names"); those change between scans, so they are never used here. `scan` marks devices that \
      advertise a text-stream service.

      --interactive reads commands line by line from standard input and prints each answer, like a serial \
      terminal; notifications outside a command are printed as `(unsolicited) …`. Leave with .quit or \
      end of input (Ctrl-D).

      \(ExitStatus.paragraph("0 every command was answered (an answer is printed as the device gives it, its own error replies such as ERR… included: what they mean is the device's); 1 an error, or some command got no answer or could not be sent (the others still ran)"))
      """)

  @OptionGroup var connection: GATTConnectionOptions
  var logging: LoggingOptions { connection.logging }

  @Argument(help: ArgumentHelp("Commands to send, in order (without terminator).", valueName: "command"))
  var commands: [String] = []

  @Option(help: ArgumentHelp("Use this profile instead of detecting it.", valueName: "profile"))
  var profile: String?

  @Option(
    help: ArgumentHelp(
      "Terminator appended to each command: cr, crlf, lf, none (default: the profile's).",
      valueName: "terminator"))
  var terminator: TextStreamTerminator?

  @Option(
    help: ArgumentHelp(
      "Seconds to wait for the first notification of an answer (default 2).",
      valueName: "seconds"))
  var timeoutFirst: Double?

  @Option(help: ArgumentHelp("Seconds of silence that end an answer (default 0.2).", valueName: "seconds"))
  var timeoutNext: Double?

  @Option(
    help: ArgumentHelp(
      "Seconds to wait for the device to acknowledge each written fragment of a command (default 2 for the "
        + "first, 1.5 for the rest).", valueName: "seconds"))
  var timeoutAck: Double?

  @Flag(help: "Print JSON.")
  var json = false

  @Flag(help: "Read commands from standard input, one per line, and print each answer.")
  var interactive = false

  func validate() throws {
    try SecondsOption.validate(timeoutFirst, "--timeout-first")
    try SecondsOption.validate(timeoutNext, "--timeout-next")
    try SecondsOption.validate(timeoutAck, "--timeout-ack")
    if let profile, TextStreamProfile.named(profile) == nil {
      throw ValidationError(
        "'\(profile)' is not a text-stream profile (\(TextStreamProfile.known.map(\.id).joined(separator: ", ")))")
    }
    if interactive {
      guard commands.isEmpty, !json else { throw ValidationError("--interactive takes no commands and no --json") }
    } else if commands.isEmpty {
      throw ValidationError("give at least one command, or --interactive")
    }
  }

  func run() async throws { try await execute { print($0) } }

  /// The timeouts of every command: the profile's, with those given on the command line.
  func timeouts(for profile: TextStreamProfile) -> TextStreamTimeouts {
    profile.timeouts.overriding(
      firstPacket: timeoutFirst.map(SecondsOption.duration), interFragment: timeoutNext.map(SecondsOption.duration),
      send: timeoutAck.map(SecondsOption.duration))
  }

  /// Connects, sets the text stream up and returns the client, with the central to keep while it is used.
  func open() async throws -> (central: any Central, client: TextStreamClient) {
    let (central, client) = try await connection.connectKeepingCentral()
    do {
      let link = try await GATTTextStreamLink.open(client, profile: profile.flatMap(TextStreamProfile.named))
      let timeouts = timeouts(for: link.profile)
      // The first command waits the inter-fragment timeout for what the device says on being subscribed.
      return (
        central,
        TextStreamClient(
          link: link, timeouts: timeouts, terminator: terminator, settle: timeouts.interFragment,
          quietBeforeCommand: timeouts.interFragment * 2)
      )
    } catch {
      await client.close()
      throw CLIFailure("\(connection.address): \(error)")
    }
  }

  func execute(emit: @escaping @Sendable (String) -> Void) async throws {
    let (central, client) = try await open()
    defer { withExtendedLifetime(central) {} }
    if interactive {
      await TxrxConsole(client: client, emit: emit).run()
      await client.close()
      return
    }
    var results: [Result] = []
    // -v: each answer's end, by the command's place on the line, not its text (a command may carry a secret).
    let log = CLILog.logger("txrx")
    for (index, command) in commands.enumerated() {
      var result: Result
      let answer: TextStreamAnswer?
      do {
        answer = try await client.send(command)
        result = Result(command: command, answer: answer!)
      } catch {
        answer = nil
        result = Result(command: command, error: error)
      }
      // What came outside the answer came before it (since the previous command): shown first.
      let unsolicited = Self.lines(await client.takeUnsolicited())
      // Logged once what came before the answer is taken: anything from here on comes after it.
      if let answer {
        log.debug(
          "answered",
          metadata: [
            "command": "\(index + 1)", "notifications": "\(answer.notifications)", "bytes": "\(answer.bytes.count)",
          ])
      } else {
        log.debug("not answered", metadata: ["command": "\(index + 1)", "error": "\(result.error?.code ?? "")"])
      }
      result.unsolicited = unsolicited.isEmpty ? nil : unsolicited
      results.append(result)
      guard !json else { continue }
      for line in unsolicited { emit("(unsolicited) " + line.terminalSafe) }
      if let answer {
        if commands.count > 1 { emit("> \(command.terminalSafe)") }
        for line in answer.lines { emit(line.terminalSafe) }
      } else if let error = result.error {
        FileHandleOutput.standardError(CLIFailure.linePrefix + "\(command.terminalSafe): \(error.message.terminalSafe)")
      }
    }
    // An answer's tail later than --timeout-next: waited for once, so it is shown rather than lost.
    try? await Task.sleep(for: client.timeouts.interFragment)
    let after = Self.lines(await client.takeUnsolicited())
    if !after.isEmpty {
      results[results.count - 1].unsolicitedAfter = after
      if !json { for line in after { emit("(unsolicited) " + line.terminalSafe) } }
    }
    await client.close()
    if json { emit(try JSONOutput.string(results)) }
    let failed = results.filter { $0.error != nil }.count
    if failed > 0 { throw CLIFailure("\(failed) of \(results.count) commands failed") }
  }

  /// One command's outcome in `--json`.
  struct Result: Encodable {
    struct Failure: Encodable {
      var code: String
      var message: String
    }
    var command: String
    var answer: String?
    var lines: [String]?
    var notifications: Int?
    var error: Failure?
    /// Lines outside any answer, received since the previous command.
    var unsolicited: [String]?
    /// On the last command: lines outside any answer within --timeout-next after it.
    var unsolicitedAfter: [String]?

    init(command: String, answer: TextStreamAnswer) {
      self.command = command
      self.answer = answer.text
      lines = answer.lines
      notifications = answer.notifications
    }

    init(command: String, error: TextStreamError) {
      self.command = command
      self.error = Failure(code: error.code, message: error.description)
    }
  }
}

extension TxrxCommand {
  /// Unsolicited notifications as lines: joined in arrival order and split at CR or LF (a line may span
  /// notifications).
  static func lines(_ notifications: [[UInt8]]) -> [String] {
    TextStreamAnswer(bytes: notifications.flatMap { $0 }, notifications: notifications.count).lines
  }
}

extension TextStreamTerminator: ExpressibleByArgument {}
