import CLibPQ
import Foundation
import OwnThreads
import Synchronization

/// One libpq connection to the shared journal's PostgreSQL server. libpq's calls block (they
/// wait on the server's socket), so every call runs on this connection's own thread (`SerialThread`), never
/// on Swift's cooperative pool (the design rule "Blocking C calls never run on the cooperative pool"): a task
/// hands a synchronous body to `session(_:)`, which runs it there with a `PostgresSession` and resumes the
/// task with its result — the pattern of GRDB's `read`/`write` that the SQLite journal uses.
///
/// A connection the server dropped (a restart, a failover, a network cut) is re-established and the body
/// run again (`PostgresReconnect`): the campaign's state is in the database, so the gateway goes on where it
/// was. Only a server unreachable for `reconnectSeconds` (60 s by default [I]) stops it, as a journal it
/// cannot write stops a campaign on SQLite.
public final class PostgresConnection: Sendable {
  /// The server as messages may show it: the URL with any password replaced (`PostgresURL.redacted`).
  public let location: String
  /// How long a body keeps trying to reach a server that dropped the connection before its error is thrown.
  public let reconnectSeconds: Double
  /// The server's bound on a transaction left idle (`PostgresReconnect.defaultIdleInTransactionSeconds`).
  public let idleInTransactionSeconds: Double
  private let queue: SerialThread
  /// The libpq handle; `nil` once closed. The mutex is only ever taken on `queue`, so it never waits; it is
  /// what lets the non-Sendable pointer live in a Sendable class.
  private let handle: Mutex<OpaquePointer?>

  private init(
    handle: sending OpaquePointer, location: String, reconnectSeconds: Double, idleInTransactionSeconds: Double
  ) {
    self.handle = Mutex(handle)
    self.location = location
    self.reconnectSeconds = reconnectSeconds
    self.idleInTransactionSeconds = idleInTransactionSeconds
    queue = SerialThread(name: "beacon-provision.postgres")
  }

  /// Connects to `url` (a `postgresql://` URL without a password, `PostgresURL`); `password`, when given,
  /// is passed to libpq as its own parameter and never becomes part of any text shown. Without one, libpq
  /// still reads `PGPASSWORD` and `~/.pgpass` itself.
  public static func connect(
    _ url: PostgresURL, password: String? = nil, reconnectSeconds: Double = PostgresReconnect.defaultSeconds,
    idleInTransactionSeconds: Double = PostgresReconnect.defaultIdleInTransactionSeconds
  ) async throws -> PostgresConnection {
    let location = url.redacted
    let text = url.text
    // Only the libpq handle crosses from the connect thread (`sending`: that thread keeps no copy); the
    // connection object is made here, on the awaiting side, so everything `session` reads was written by
    // this task and not published from another thread. (Not `OwnThread.run`: its result must be `Sendable`,
    // and a libpq handle is not.)
    let pointer: OpaquePointer = try await withCheckedThrowingContinuation { continuation in
      OwnThread.start("beacon-provision.postgres-connect") {
        do {
          continuation.resume(
            returning: try open(
              text, password: password, location: location, idleInTransactionSeconds: idleInTransactionSeconds))
        } catch {
          continuation.resume(throwing: error)
        }
      }
    }
    return PostgresConnection(
      handle: pointer, location: location, reconnectSeconds: reconnectSeconds,
      idleInTransactionSeconds: idleInTransactionSeconds)
  }

  /// How long one connect (and each reconnect's `PQreset`) may wait for a server host that does not answer
  /// (a failover, a cut network) [I: 10 s; libpq's default is none, leaving it to the system's TCP connect
  /// timeout of about two minutes, which would overrun `PostgresReconnect.defaultSeconds`]. A
  /// `connect_timeout` in `--journal`, or PGCONNECT_TIMEOUT, wins.
  static let connectTimeoutSeconds = 10

  /// Opens libpq's connection to `text` and configures it (blocking: runs on the connect thread).
  private static func open(
    _ text: String, password: String?, location: String, idleInTransactionSeconds: Double
  ) throws -> OpaquePointer {
    // `connect_timeout` comes before `dbname`, so a value in the URL or keyword string overrides it; one in
    // PGCONNECT_TIMEOUT is left to libpq.
    let timeout = getenv("PGCONNECT_TIMEOUT") == nil ? [("connect_timeout", String(Self.connectTimeoutSeconds))] : []
    var keys = timeout.map(\.0) + ["dbname", "application_name"]
    var values = timeout.map(\.1) + [text, "beacon-provision"]
    if let password {
      keys.append("password")
      values.append(password)
    }
    let pointer = withCStrings(keys) { k in withCStrings(values) { v in PQconnectdbParams(k, v, 1) } }
    guard let pointer else { throw PostgresError(location: location, message: "out of memory", sqlState: nil) }
    guard PQstatus(pointer) == CONNECTION_OK else {
      let message = String(cString: PQerrorMessage(pointer))
      PQfinish(pointer)
      throw PostgresError(location: location, message: message, sqlState: nil)
    }
    // The server's NOTICEs ("relation … already exists, skipping") would go to stderr: warnings and up only.
    // (A reconnect keeps the setting: `PQreset` reopens with the same parameters, and this is sent again.)
    PostgresReconnect.configure(pointer, idleInTransactionSeconds: idleInTransactionSeconds)
    return pointer
  }

  /// Runs `body` on the connection's queue with the connection; its result or error comes back here.
  /// A connection lost on the way is re-established and `body` run again (`PostgresReconnect.run`), so a
  /// body must be one that may run twice: a transaction, or statements whose repetition changes nothing.
  @discardableResult
  public func session<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
    let (location, bound, idle) = (location, reconnectSeconds, idleInTransactionSeconds)
    return try await withCheckedThrowingContinuation { continuation in
      queue.async {
        continuation.resume(
          with: Result {
            try self.handle.withLock { pointer -> T in
              guard let pointer else {
                throw PostgresError(location: location, message: "connection closed", sqlState: nil)
              }
              return try PostgresReconnect.run(
                pointer, location: location, within: bound, idleInTransactionSeconds: idle
              ) {
                try body(PostgresSession(pointer: pointer, location: location))
              }
            }
          })
      }
    }
  }

  /// Closes the connection (the server then releases its advisory locks and ends its transaction).
  public func close() async {
    _ = try? await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      queue.async {
        self.handle.withLock { pointer in
          if let p = pointer { PQfinish(p) }
          pointer = nil
        }
        continuation.resume()
      }
    }
    queue.finish()
  }

  deinit { handle.withLock { pointer in if let p = pointer { PQfinish(p) } } }
}

/// C strings for libpq's parallel keyword/value arrays (NULL-terminated), alive during `body`.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
  let copies = strings.map { strdup($0) }
  defer { for copy in copies { free(copy) } }
  let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
