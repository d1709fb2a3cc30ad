import Foundation
import Glibc
import TextStream

/// The line console of `txrx --interactive`, in the manner of a serial terminal: each line
/// read from standard input is sent as a command and its answer printed; notifications that arrive
/// outside a command are printed as they come, marked `(unsolicited)`. A prompt `> ` is shown when
/// standard input is a terminal. `.quit` or end of input ends it; a failed command prints `Error: …` and
/// the console goes on (a dropped link ends it).
///
/// Standard input is read with blocking `readLine()` on `BlockingIO`'s queue, never on the cooperative
/// pool.
struct TxrxConsole {
  let client: TextStreamClient
  let emit: @Sendable (String) -> Void

  func run() async {
    let profile = client.link.profile
    emit("connected to \(client.link.peer): \(profile.name), MTU \(await client.link.attMTU); .quit or Ctrl-D to leave")
    let unsolicited = Task { [client, emit] in
      for await value in client.unsolicited {
        for line in TextStreamAnswer(bytes: value, notifications: 1).lines { emit("(unsolicited) \(line)") }
      }
    }
    defer { unsolicited.cancel() }
    let prompt = isatty(STDIN_FILENO) == 1
    while true {
      if prompt { FileHandle.standardOutput.write(Data("> ".utf8)) }
      guard let line = try? await BlockingIO.run({ readLine(strippingNewline: true) }) ?? nil else { return }
      let command = line.trimmingCharacters(in: .whitespaces)
      if command.isEmpty { continue }
      if command == ".quit" { return }
      do {
        let answer = try await client.send(command)
        for text in answer.lines { emit(text) }
      } catch {
        emit(CLIFailure.linePrefix + "\(error)")
        if case .linkLost = error { return }
      }
    }
  }
}
