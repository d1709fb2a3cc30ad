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

  /// `sharedValues(withPrefix:)` gives the values under keys starting with the prefix, taken as text: a `%` or
  /// `_` in it matches only itself, and a key made without a value yet is left out.
  @Test func valuesUnderAPrefixAreFoundByTextNotByPattern() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      for (key, value) in [("rollout\np1\nV5%", "a"), ("rollout\np2\nV5_", "b"), ("rolloutX", "c"), ("other", "d")] {
        _ = try await journal.updateShared(key) { _ in (value, ()) }
      }
      _ = try await journal.updateShared("rollout\nnone") { _ in (nil, ()) }
      #expect(
        try await journal.sharedValues(withPrefix: "rollout\n") == ["rollout\np1\nV5%": "a", "rollout\np2\nV5_": "b"])
      #expect(try await journal.sharedValues(withPrefix: "rollout\np1\nV5%") == ["rollout\np1\nV5%": "a"])
      #expect(try await journal.sharedValues(withPrefix: "rollout\np_\n").isEmpty, "_ is no wildcard")
      await journal.connection.close()
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
