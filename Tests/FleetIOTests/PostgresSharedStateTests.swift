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

  /// `sharedValues(prefix:suffix:)` gives the values under keys from the prefix to the suffix, taken as text: a
  /// `%` or `_` in them matches only itself, and a key made without a value yet is left out.
  @Test func valuesUnderAPrefixAndSuffixAreFoundByTextNotByPattern() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      for (key, value) in [("rollout\np1\nV5%", "a"), ("rollout\np2\nV5_", "b"), ("rolloutX", "c"), ("other", "d")] {
        _ = try await journal.updateShared(key) { _ in (value, ()) }
      }
      _ = try await journal.updateShared("rollout\nnone") { _ in (nil, ()) }
      #expect(
        try await journal.sharedValues(prefix: "rollout\n") == ["rollout\np1\nV5%": "a", "rollout\np2\nV5_": "b"])
      #expect(try await journal.sharedValues(prefix: "rollout\n", suffix: "\nV5%") == ["rollout\np1\nV5%": "a"])
      #expect(try await journal.sharedValues(prefix: "rollout\np_\n").isEmpty, "_ is no wildcard")
      #expect(try await journal.sharedValues(prefix: "rollout\n", suffix: "V5.").isEmpty)
      await journal.connection.close()
    }
  }

  /// `updateSharedGroup`: two gateways each changing their own key of one group, 40 times at once, where each
  /// change writes one more than the sum of the group's values it read. The group's lock makes each see the
  /// other's last change (row locks alone would not: the keys differ), so no two changes read the same sum;
  /// a key outside the group is neither read nor changed.
  @Test func changesOfOneGroupSeeEachOthersKeys() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let one = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      let two = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-2")
      _ = try await one.updateShared("g\noutside") { _ in ("1000", ()) }
      let add = { @Sendable (own: String) in
        { @Sendable (values: [String: String]) -> (changed: [String: String], result: Int) in
          let next = values.values.compactMap { Int($0) }.reduce(0, +) + 1
          return (["g\n" + own + "\nsource": String(next)], next)
        }
      }
      async let first = (0..<40).asyncMap { _ in
        try await one.updateSharedGroup("group", prefix: "g\n", suffix: "\nsource", add("a"))
      }
      async let second = (0..<40).asyncMap { _ in
        try await two.updateSharedGroup("group", prefix: "g\n", suffix: "\nsource", add("b"))
      }
      let seen = try await first + second
      #expect(Set(seen).count == 80, "each change saw the others: \(seen.sorted())")
      #expect(try await one.sharedValues(prefix: "g\n", suffix: "\noutside") == ["g\noutside": "1000"])
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
