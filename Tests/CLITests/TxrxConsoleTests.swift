import Foundation
import Synchronization
import Testing

/// `txrx --interactive` as a person uses it: the built CLI runs in a tmux pane (a real terminal, so the
/// prompt shows), commands are typed with `send-keys`, and the pane's output is read from tmux's control
/// mode (`%output` notifications on a pipe, as they come — no polling).
@Suite(.timeLimit(.minutes(2))) struct TxrxConsoleTests {
  /// The pane's output so far, decoded from control mode's `%output %<pane> <text>` lines (bytes below
  /// 0x20 and the backslash come as `\ooo`).
  final class Screen: Sendable {
    private let text = Mutex("")
    var all: String { text.withLock { $0 } }

    func take(_ line: String) {
      guard line.hasPrefix("%output ") else { return }
      let payload = line.split(separator: " ", maxSplits: 2).dropFirst(2).first.map(String.init) ?? ""
      var out = ""
      var rest = Substring(payload)
      while let slash = rest.firstIndex(of: "\\") {
        out += rest[..<slash]
        let digits = rest[rest.index(after: slash)...].prefix(3)
        if digits.count == 3, let value = UInt8(digits, radix: 8) {
          out.unicodeScalars.append(UnicodeScalar(value))
          rest = rest[rest.index(slash, offsetBy: 4)...]
        } else {
          out += "\\"
          rest = rest[rest.index(after: slash)...]
        }
      }
      out += rest
      text.withLock { $0 += out }
    }
  }

  /// Disabled: in about 1 of 6 runs of the whole suite on a loaded two-core machine (never alone, in 30 runs),
  /// the console in the tmux pane did not end after `.quit` (the pane had shown every answer and the typed
  /// `.quit`), and the test waited out its time limit. Cause not found yet (issue #14's note): enable it once
  /// it is. `BEACON_TXRX_CONSOLE_TEST=1` runs it.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["BEACON_TXRX_CONSOLE_TEST"] == "1"))
  func typedCommandsAreAnsweredInATerminal() async throws {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("bp-tmux-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: state) }
    let socket = "bp-txrx-\(UUID().uuidString)"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "tmux", "-L", socket, "-f", "/dev/null", "-C", "new-session", "-x", "120", "-y", "40",
      "env XDG_STATE_HOME=\(state) \(ApplyCrashTests.binary) txrx 6E:40:00:00:00:01 --interactive --adapter sim --timeout-next 1",
    ]
    let (input, output) = (Pipe(), Pipe())
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    var lines = ProcessLines.stream(output).makeAsyncIterator()
    let exit = try ProcessExit.run(process)
    let screen = Screen()
    // A console that stops answering fails the test with what its pane showed, rather than at the time limit.
    let watchdog = Task { [screen] in
      try await Task.sleep(for: .seconds(60))
      Issue.record("the console did not finish within 60 s; the pane showed:\n\(screen.all)")
      process.terminate()
      // The tmux server holds the control client's output pipe too: end it, or the lines never end.
      let kill = Process()
      kill.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      kill.arguments = ["tmux", "-L", socket, "kill-server"]
      try? kill.run()
    }
    defer { watchdog.cancel() }

    /// Reads control-mode lines until the screen shows `text`; false when tmux ended first.
    func shows(_ text: String) async -> Bool {
      while !screen.all.contains(text) {
        guard let line = await lines.next() else { return false }
        screen.take(line)
      }
      return true
    }
    func type(_ keys: String) {
      let quoted = "'" + keys.replacingOccurrences(of: "'", with: "'\\''") + "'"
      input.fileHandleForWriting.write(Data("send-keys -l \(quoted)\nsend-keys Enter\n".utf8))
    }

    #expect(await shows("Ctrl-D to leave"))
    #expect(await shows("> "))  // a terminal: the prompt
    type("AT+NAME?")
    #expect(await shows("+NAME:AT_Sensor_01"))
    type("AT+NAME=Dock-9")
    type("AT+NAME?")
    #expect(await shows("+NAME:Dock-9"))
    type("AT+TXPOWER=3")
    #expect(await shows("ERROR"))
    type(".quit")
    // The console ends, so does its pane and the session; control mode then exits.
    while let line = await lines.next() { screen.take(line) }
    await exit.wait()
    #expect(process.terminationStatus == 0)
  }
}
