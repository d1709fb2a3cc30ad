/// State that the gateways of a site change together (`bp_shared_state`): a text value under a key — a
/// reconcile rollout's stages, as JSON — read and written back in one transaction holding the row's lock, so
/// two gateways' changes apply one after the other, each to what the other left.
extension PostgresJournal {
  /// Runs `change` on the value under `key` (nil when there is none yet) holding its row locked, and writes
  /// back the value it returns (nil: unchanged). Returns `change`'s result. `change` may run twice when the
  /// connection is lost on the way (`PostgresConnection.session`): a pure function of the value it is given.
  public func updateShared<T: Sendable>(
    _ key: String, _ change: @escaping @Sendable (String?) throws -> (value: String?, result: T)
  ) async throws -> T {
    try await write { s in
      try s.transaction {
        // The row exists before it is locked, so a first change by two gateways at once is serialised too.
        try s.query(
          "INSERT INTO bp_shared_state (key, value, updated_at) VALUES ($1, '', now()) ON CONFLICT (key) DO NOTHING",
          [key])
        let stored =
          try s.query("SELECT value FROM bp_shared_state WHERE key = $1 FOR UPDATE", [key]).rows
          .first?[0] ?? nil
        let (value, result) = try change(stored.flatMap { $0.isEmpty ? nil : $0 })
        if let value {
          try s.query("UPDATE bp_shared_state SET value = $2, updated_at = now() WHERE key = $1", [key, value])
        }
        return result
      }
    }
  }

  /// The value under `key`, or nil.
  public func shared(_ key: String) async throws -> String? {
    try await connection.session { s in
      let value = try s.query("SELECT value FROM bp_shared_state WHERE key = $1", [key]).rows.first?[0] ?? nil
      return value.flatMap { $0.isEmpty ? nil : $0 }
    }
  }

  /// Every value whose key starts with `prefix`, by key (a key made but never given a value is left out): a
  /// site's rollouts of every profile, to carry a stopped rollout's stop over to a new one of its source.
  public func sharedValues(withPrefix prefix: String) async throws -> [String: String] {
    try await connection.session { s in
      var values: [String: String] = [:]
      // `left` compares the prefix as text: `LIKE` would read a `%` or `_` in a firmware source as a pattern.
      for row in try s.query(
        "SELECT key, value FROM bp_shared_state WHERE left(key, length($1)) = $1 AND value <> ''", [prefix]
      ).rows {
        if let key = row[0], let value = row[1] { values[key] = value }
      }
      return values
    }
  }
}
