import Glibc
import OwnThreads

/// The reader of a command/event socket — the raw HCI channel (`HCISocket`) and the mgmt channel
/// (`MgmtSocket`) work alike: a dedicated thread (never the cooperative pool) waits on the socket, decodes
/// each packet into an event, hands a command's reply to the caller awaiting it, and broadcasts every event
/// to the subscribers. It runs until the socket closes or fails; then the socket is closed, commands still
/// waiting fail with the reason, and the event streams finish.
struct SocketReader<Key: Hashable & Sendable, Reply: Sendable, Event: Sendable>: Sendable {
  /// A decoded packet: the event, and the command reply it carries, if any.
  typealias Decoded = (event: Event, reply: (key: Key, value: Reply)?)

  let handle: SocketHandle
  let replies: PendingReplies<Key, Reply>
  let subscribers: EventSubscribers<Event>
  /// The largest packet the socket carries.
  let capacity: Int
  /// The read call named in errors, e.g. `read(HCI)`.
  let call: String
  /// Decodes one packet; nil skips it (one undecodable packet must not end the session).
  let decode: @Sendable ([UInt8]) -> Decoded?

  /// Starts the reader on a thread named `name`. `closed` is what waiting commands fail with when the
  /// socket is closed locally.
  func start(_ name: String, closed: BlueZError) {
    let reader = self
    OwnThread.start(name) { reader.run(closed: closed) }
  }

  private func run(closed: BlueZError) {
    var failure = closed
    loop: while true {
      switch handle.wait(for: Int16(POLLIN), timeout: nil) {
      case .closed: break loop
      case .timedOut: continue
      case .ready: break
      }
      do {
        guard let packet = try handle.receive(capacity: capacity, call: call) else { continue }
        guard let decoded = decode(packet) else { continue }
        if let reply = decoded.reply { replies.resolve(reply.key, with: reply.value) }
        subscribers.broadcast(decoded.event)
      } catch let error as BlueZError {
        failure = error
        break loop
      } catch {
        break loop
      }
    }
    handle.close()
    replies.close(with: failure)
    subscribers.finish()
  }
}
