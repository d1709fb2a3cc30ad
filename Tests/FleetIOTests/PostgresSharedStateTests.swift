import Foundation
import Testing

@testable import FleetIO

/// `PostgresJournal`'s shared state, against a real PostgreSQL server: a group of keys changed by two gateways
/// at once, each change seeing the others' whole; values found by their key's prefix and suffix as text.
@Suite(.timeLimit(.minutes(3))) struct PostgresSharedStateTests {
  /// Sets `key` to `value` (its own group).
  static func put(_ journal: PostgresJournal, _ key: String, _ value: String) async throws {
    try await journal.updateSharedGroup(key, prefix: key) { _ in ([key: value], ()) }
  }

  /// `sharedValues(prefix:suffix:)` gives the values under keys from the prefix to the suffix, taken as text: a
  /// `%` or `_` in them matches only itself.
  @Test func valuesUnderAPrefixAndSuffixAreFoundByTextNotByPattern() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let journal = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      for (key, value) in [("rollout\np1\nV5%", "a"), ("rollout\np2\nV5_", "b"), ("rolloutX", "c"), ("other", "d")] {
        try await Self.put(journal, key, value)
      }
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
  /// a key outside the group is neither read nor changed, and a change leaves the keys it does not return as they
  /// were.
  @Test func changesOfOneGroupSeeEachOthersKeys() async throws {
    try await withPostgres { server in
      let url = try await server.createDatabase()
      let one = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-1")
      let two = try await PostgresJournal(connection: try await connect(server, database: url), gateway: "gw-2")
      try await Self.put(one, "g\noutside", "1000")
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
      let before = try await one.sharedValues(prefix: "g\n")
      #expect(try await two.updateSharedGroup("group", prefix: "g\n") { values in ([:], values.count) } == 3)
      #expect(try await one.sharedValues(prefix: "g\n") == before)
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
