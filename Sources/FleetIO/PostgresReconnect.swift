import CLibPQ
import Foundation

/// Going on through a server restart (a PostgreSQL restart of 0.6 s must not stop every gateway): a
/// statement that fails because the connection is gone — libpq reports the connection bad, or the server
/// says it is shutting down, starting up or unreachable (SQLSTATE class 08, 57P01–57P03) — is retried on a
/// reset connection (`PQreset`, the same parameters), with a backoff from 50 ms doubling to 2 s, until
/// `within` seconds have passed since the first failure; then the last error is thrown, saying how long the
/// server was unreachable. Any other error (a constraint, a syntax error, a lost lease) is thrown at once.
///
/// Runs on the connection's own thread (`PostgresConnection`): the waits block that thread, never the
/// cooperative pool. A body the connection dropped in the middle is run again from its start. The server
/// rolls back a transaction whose connection died, so a transaction runs once; the one ambiguity is a
/// COMMIT whose reply was lost — applied, yet run again — so what runs through here is written to be
/// harmless twice: a device record carries its own id and counts its attempt and write once
/// (`PostgresJournal.record(_:id:)`), and a claim run again drops a lease its first run took when it now
/// leaves the device (`GatewayCoordinator.claim`).
public enum PostgresReconnect {
  /// The bound before a gateway gives up on an unreachable server [I: a minute outlasts a restart or a
  /// failover, and is short enough that an operator sees a dead server while the campaign is watched].
  public static let defaultSeconds = 60.0

  /// How long the server lets a connection sit inside a transaction between two statements before it ends
  /// the session (`idle_in_transaction_session_timeout`) [I: 10 s — a third of the default 30 s lease].
  /// The journal's transactions run start to end on the connection's thread without waiting on anything
  /// but the server (`PostgresConnection.session`), so only a stopped process gets near it: a gateway frozen
  /// mid-transaction (SIGSTOP, a suspended VM) would otherwise hold the rows it locked — a device's lease,
  /// the shared rollout's row — against every other gateway for as long as it stays frozen, and they would
  /// stall with it. With the bound the server rolls the transaction back; the frozen gateway, resumed,
  /// finds its connection gone and runs the transaction again from its start on a new one (`run`), where
  /// its lease is checked as always (`LeaseFence`).
  public static let defaultIdleInTransactionSeconds = 10.0

  /// Settings every connection gets, again after each reset.
  static func configure(_ pointer: OpaquePointer, idleInTransactionSeconds: Double) {
    PQclear(PQexec(pointer, "SET client_min_messages TO warning"))
    let milliseconds = max(1, Int((idleInTransactionSeconds * 1000).rounded()))
    PQclear(PQexec(pointer, "SET idle_in_transaction_session_timeout = \(milliseconds)"))
  }

  static func run<T>(
    _ pointer: OpaquePointer, location: String, within bound: Double, idleInTransactionSeconds: Double,
    _ body: () throws -> T
  ) throws -> T {
    var firstFailure: Date? = nil
    var delay = 0.05
    while true {
      var failure: PostgresError
      if PQstatus(pointer) != CONNECTION_OK {
        PQreset(pointer)
        if PQstatus(pointer) == CONNECTION_OK { configure(pointer, idleInTransactionSeconds: idleInTransactionSeconds) }
      }
      if PQstatus(pointer) == CONNECTION_OK {
        do { return try body() } catch let error as PostgresError where lost(error, pointer) { failure = error }
      } else {
        failure = PostgresError(location: location, message: String(cString: PQerrorMessage(pointer)), sqlState: nil)
      }
      let started = firstFailure ?? Date()
      firstFailure = started
      guard Date().timeIntervalSince(started) < bound else {
        failure.message = "the server could not be reached for \(Int(bound)) s: " + failure.message
        throw failure
      }
      Thread.sleep(forTimeInterval: delay)
      delay = min(delay * 2, 2)
    }
  }

  /// Whether `error` means the connection is gone rather than that the statement was refused.
  static func lost(_ error: PostgresError, _ pointer: OpaquePointer) -> Bool {
    if PQstatus(pointer) == CONNECTION_BAD { return true }
    guard let state = error.sqlState else { return false }
    // 25P03: the server ended the session for idling in a transaction (`defaultIdleInTransactionSeconds`).
    return state.hasPrefix("08") || ["57P01", "57P02", "57P03", "25P03"].contains(state)
  }
}
