/// State that the gateways of a site change together (`bp_shared_state`): text values under keys — a reconcile
/// rollout's stages, as JSON, under `rollout` + the profile and the firmware source. A group of keys (one firmware
/// source's rollouts) is read and written back in one transaction holding the group's advisory lock, so two
/// gateways' changes apply one after the other, each to what the other left, whichever of the group's keys each
/// changes.
extension PostgresJournal {
  /// Every value under a key that starts with `prefix` and ends with `suffix`, by key: a snapshot, read without
  /// a lock.
  public func sharedValues(prefix: String, suffix: String = "") async throws -> [String: String] {
    try await connection.session { s in try Self.values(s, prefix: prefix, suffix: suffix) }
  }

  /// Runs `change` on every value under a key that starts with `prefix` and ends with `suffix` (key → value)
  /// while holding the transaction's advisory lock named `group`, and writes back the values it returns (keys it
  /// leaves out are unchanged). Every change of those keys goes through here under the same `group`, so each
  /// sees the others' whole: a site's rollouts of one firmware source, where a stop under one key must carry
  /// over to a new key admitting its first devices. `change` may run twice when the connection is lost on the
  /// way (`PostgresConnection.session`): a pure function of the values it is given.
  public func updateSharedGroup<T: Sendable>(
    _ group: String, prefix: String, suffix: String = "",
    _ change: @escaping @Sendable ([String: String]) throws -> (changed: [String: String], result: T)
  ) async throws -> T {
    do {
      return try await write { s in try Self.change(s, group: group, prefix: prefix, suffix: suffix, change) }
    } catch let refusal as SharedChangeRefusal {
      throw refusal.error
    }
  }

  /// `updateSharedGroup`'s transaction; an error `change` throws comes out as a `SharedChangeRefusal`.
  private static func change<T: Sendable>(
    _ s: PostgresSession, group: String, prefix: String, suffix: String,
    _ change: ([String: String]) throws -> (changed: [String: String], result: T)
  ) throws -> T {
    try s.transaction {
      _ = try s.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [group])
      let values = try Self.values(s, prefix: prefix, suffix: suffix)
      let changed: [String: String]
      let result: T
      do { (changed, result) = try change(values) } catch { throw SharedChangeRefusal(error: error) }
      for (key, value) in changed.sorted(by: { $0.key < $1.key }) {
        try s.query(
          "INSERT INTO bp_shared_state (key, value, updated_at) VALUES ($1, $2, now()) "
            + "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()", [key, value])
      }
      return result
    }
  }

  /// The values under keys from `prefix` to `suffix`, compared as text (`LIKE` would read a `%` or `_` in a
  /// firmware source as a pattern); an empty value (a row an earlier release made before writing it) is left out.
  private static func values(_ s: PostgresSession, prefix: String, suffix: String) throws -> [String: String] {
    var values: [String: String] = [:]
    for row in try s.query(
      "SELECT key, value FROM bp_shared_state WHERE left(key, length($1)) = $1 AND right(key, length($2)) = $2 "
        + "AND value <> ''", [prefix, suffix]
    ).rows {
      if let key = row[0], let value = row[1] { values[key] = value }
    }
    return values
  }
}

/// What a shared change's closure threw (a refused plan, a row it cannot read): handed back to the caller as it
/// was, not as a journal that cannot be written.
struct SharedChangeRefusal: Error {
  let error: any Error
}
