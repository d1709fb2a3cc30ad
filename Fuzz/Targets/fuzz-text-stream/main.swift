import FuzzSupport
import Profiles
import TextStream

// A text-stream device's side of one command (docs/protocols/text-stream.md) as the pure engine meets it:
// `TextStreamExchange` for a command the input gives, fed the events the rest of the input spells out —
// acks, busy or rejected writes, notifications of arbitrary bytes, timer expiries (the armed timer's or a
// stale token), the link's end — then the answer as `txrx` prints it (text, trimmed text, lines) and as
// `plan`/`apply` hold it to a `commands` item's expectation (text and regular expression).
//
// Input: [fragment size][terminator][command length n][n command bytes], then events as `Chunks` (a length
// byte, then the chunk): a chunk's first byte picks the event, the rest is its payload.
//
// Properties checked besides "no crash": the fragments are the command and its terminator in order, none
// larger than the fragment size; each write is the next fragment; a finished answer is exactly the
// notifications received, in order; after the exchange is over every event is ignored; answer lines hold
// no CR or LF.
private let terminators: [TextStreamTerminator] = [.cr, .crlf, .lf, .none]
private let expectations = [
  ResolvedTextCommand(index: 0, query: "AT+NAME?", expect: .text("+NAME:dock-01"), set: "AT+NAME=dock-01"),
  ResolvedTextCommand(
    index: 1, query: "AT+INTERVAL?", expect: .regex(#"\+INTERVAL:(50[0-9]|[1-9][0-9]{3})"#), set: "AT+INTERVAL=500"),
  ResolvedTextCommand(index: 2, query: "INVENTORY", expect: .regex("(EPC=[0-9A-F]{24},RSSI=-[0-9]+|OK)"), set: "x"),
]

Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  guard bytes.count >= 3 else { return 0 }
  let fragmentSize = Int(bytes[0])
  let terminator = terminators[Int(bytes[1]) % terminators.count]
  let commandEnd = min(bytes.count, 3 + Int(bytes[2]))
  let command = Array(bytes[3..<commandEnd])
  let timeouts = TextStreamTimeouts(firstPacket: .seconds(2), interFragment: .milliseconds(200))
  var exchange = TextStreamExchange(
    command: command, terminator: terminator, fragmentSize: fragmentSize, timeouts: timeouts)

  let whole = command + terminator.bytes
  if exchange.fragments.joined().elementsEqual(whole) == false { Fuzzer.fail("fragments are not the command", bytes) }
  if exchange.fragments.contains(where: { $0.isEmpty || $0.count > max(1, fragmentSize) }) {
    Fuzzer.fail("a fragment is empty or over \(fragmentSize) bytes", bytes)
  }

  var written = 0
  var received: [UInt8] = []
  var notifications = 0
  var armed: Int?
  var answer: TextStreamAnswer?
  func follow(_ action: TextStreamExchange.Action) {
    switch action {
    case .write(let fragment, let timer):
      guard written < exchange.fragments.count, fragment == exchange.fragments[written] else {
        Fuzzer.fail("write \(written) is not the next fragment", bytes)
      }
      written += 1
      armed = timer.token
    case .arm(let timer): armed = timer.token
    case .wait: break
    case .finish(let a):
      guard a.bytes == received, a.notifications == notifications else {
        Fuzzer.fail("the answer is not what was notified", bytes)
      }
      answer = a
    case .fail: break
    }
  }
  follow(exchange.start())
  for chunk in Chunks(Array(bytes[commandEnd...])) {
    guard let kind = chunk.first else { continue }
    let payload = Array(chunk.dropFirst())
    let event: TextStreamExchange.Event
    switch kind % 6 {
    case 0: event = .writeAcknowledged
    case 1: event = .writeFailed(.busy("busy"))
    case 2: event = .writeFailed(.rejected("rejected"))
    case 3: event = .notification(payload)
    case 4: event = .timerExpired(token: payload.first.map { $0 % 2 == 0 ? (armed ?? 0) : Int($0) } ?? (armed ?? 0))
    default: event = .linkEnded("gone")
    }
    let over = exchange.isOver
    if case .notification(let value) = event, !over {
      received += value
      notifications += 1
    }
    let action = exchange.handle(event)
    if over {
      guard action == .wait else { Fuzzer.fail("an event after the end was not ignored", bytes) }
      continue
    }
    follow(action)
  }

  for candidate in [answer, TextStreamAnswer(bytes: bytes, notifications: 1)].compactMap({ $0 }) {
    _ = candidate.text
    _ = candidate.trimmedText
    let lines = candidate.lines
    if lines.contains(where: { $0.unicodeScalars.contains { $0 == "\r" || $0 == "\n" } }) {
      Fuzzer.fail("an answer line holds a line break", bytes)
    }
    for item in expectations {
      _ = item.accepts(lines)
      _ = item.change(answer: lines).description
    }
  }
  return 0
}
