import Fleet
import FleetIO
import TestServers

/// Runs `body` with a PostgreSQL server of its own (Debian's, `initdb` into a temporary folder, a Unix
/// socket only), stopped afterwards whatever the body did.
func withPostgres<T>(_ body: (PostgresServer) async throws -> T) async throws -> T {
  let server = try await PostgresServer.start()
  do {
    let result = try await body(server)
    await server.stop()
    return result
  } catch {
    await server.stop()
    throw error
  }
}

/// A connection to a fresh database on `server`.
func connect(_ server: PostgresServer, database url: String? = nil) async throws -> PostgresConnection {
  let text: String
  if let url { text = url } else { text = try await server.createDatabase() }
  return try await PostgresConnection.connect(try PostgresURL(text, origin: "test"))
}
