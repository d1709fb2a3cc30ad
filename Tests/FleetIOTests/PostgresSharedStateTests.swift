import Foundation
import Testing

@testable import FleetIO

/// `PostgresJournal.updateShared`, against a real PostgreSQL server: two gateways changing one value at once
/// (a reconcile rollout's stages) change it one after the other, each on what the other left, from the very
/// first change on; a key never changed reads nil.
@Suite(.timeLimit(.minutes(3))) struct PostgresSharedStateTests {
  @Test func twoGatewaysChangingOneValueAtOnceLoseNoChange() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let one = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      let two = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-2")
      #expect(try await one.shared("count") == nil)
      // Each adds one, 40 times, at once with the other; the value is a count as text.
      let add: @Sendable (String?) -> (value: String?, result: Int) = { text in
        let next = (text.flatMap { Int($0) } ?? 0) + 1
        return (String(next), next)
      }
      async let first = (0..<40).asyncMap { _ in try await one.updateShared("count", add) }
      async let second = (0..<40).asyncMap { _ in try await two.updateShared("count", add) }
      let seen = try await first + second
      #expect(try await one.shared("count") == "80")
      #expect(Set(seen).count == 80, "each change saw the one before it: no two saw the same value")
      // A change that returns nil leaves the value as it was.
      #expect(try await two.updateShared("count") { text in (nil, text) } == "80")
      #expect(try await one.shared("count") == "80")
      await one.connection.close()
      await two.connection.close()
    }
  }
}

extension Range where Bound == Int {
  /// `map` with an async body, one after another.
  fileprivate func asyncMap<T>(_ body: (Int) async throws -> T) async rethrows -> [T] {
    var result: [T] = []
    for i in self { result.append(try await body(i)) }
    return result
  }
}
