import Foundation
import GRDB

/// The presence monitor's webhook spool (no event may be lost): every webhook delivery is a row in the
/// journal's SQLite file (migration "v4", table `webhookSpool`) before anything is sent, and is deleted
/// only once its receiver answered 2xx. A monitor killed with `kill -9` finds its undelivered events there
/// at its next start and sends them with the same idempotency key, so a receiver that honours the key sees
/// each exactly once.
///
/// Rows are delivered per webhook URL in the order they were spooled (their `id`), which keeps every
/// device's events in order. The spool holds at most `limit` rows in all [I: 10,000, about a day of a
/// 50-device site's enter/exit churn]; spooling beyond it deletes the oldest rows and says how many went.
/// Like the journal, it runs through GRDB's async `read`/`write`, off the cooperative pool.
public struct WebhookSpool: Sendable {
  public let journal: Journal
  public let limit: Int

  public init(journal: Journal, limit: Int = 10_000) {
    self.journal = journal
    self.limit = max(1, limit)
  }

  /// The table (journal migration "v4").
  static func createTables(_ db: Database) throws {
    try db.create(table: "webhookSpool") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("url", .text).notNull()
      t.column("idempotencyKey", .text).notNull()
      t.column("orderKey", .text).notNull()
      t.column("body", .text).notNull()
      t.column("createdAt", .datetime).notNull()
      t.column("attempts", .integer).notNull().defaults(to: 0)
      t.column("lastError", .text)
    }
    try db.create(index: "webhookSpoolByURL", on: "webhookSpool", columns: ["url", "id"])
  }

  /// Spools deliveries in one transaction; returns how many of the oldest rows were dropped to stay within
  /// `limit` (0 normally).
  @discardableResult
  public func enqueue(_ items: [WebhookDelivery.Item], at: Date = Date()) async throws -> Int {
    guard !items.isEmpty else { return 0 }
    let limit = self.limit
    return try await journal.database.write { db in
      for item in items {
        try db.execute(
          sql: "INSERT INTO webhookSpool (url, idempotencyKey, orderKey, body, createdAt) VALUES (?, ?, ?, ?, ?)",
          arguments: [item.url, item.idempotencyKey, item.orderKey, item.body, at])
      }
      let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhookSpool") ?? 0
      guard count > limit else { return 0 }
      try db.execute(
        sql: "DELETE FROM webhookSpool WHERE id IN (SELECT id FROM webhookSpool ORDER BY id LIMIT ?)",
        arguments: [count - limit])
      return count - limit
    }
  }

  /// The oldest undelivered row for `url`.
  public func head(url: String) async throws -> WebhookDelivery.Entry? {
    try await journal.database.read { db in
      try Row.fetchOne(db, sql: "SELECT * FROM webhookSpool WHERE url = ? ORDER BY id LIMIT 1", arguments: [url]).map(
        Self.entry)
    }
  }

  /// Every URL with rows waiting (a restarted monitor delivers to URLs no longer on its command line too).
  public func urls() async throws -> [String] {
    try await journal.database.read { db in
      try String.fetchAll(db, sql: "SELECT DISTINCT url FROM webhookSpool ORDER BY url")
    }
  }

  public func count(url: String? = nil) async throws -> Int {
    try await journal.database.read { db in
      if let url {
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhookSpool WHERE url = ?", arguments: [url]) ?? 0
      }
      return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhookSpool") ?? 0
    }
  }

  /// Delivered (2xx) or refused for good: the row goes.
  public func remove(_ id: Int64) async throws {
    try await journal.database.write { db in
      try db.execute(sql: "DELETE FROM webhookSpool WHERE id = ?", arguments: [id])
    }
  }

  /// A failed attempt, kept for the next.
  public func failed(_ id: Int64, error: String) async throws {
    try await journal.database.write { db in
      try db.execute(
        sql: "UPDATE webhookSpool SET attempts = attempts + 1, lastError = ? WHERE id = ?", arguments: [error, id])
    }
  }

  /// How many rows wait per URL, by URL (the monitor's periodic report, `monitor spool list`).
  public func depths() async throws -> [(url: String, count: Int)] {
    try await journal.database.read { db in
      try Row.fetchAll(db, sql: "SELECT url, COUNT(*) AS n FROM webhookSpool GROUP BY url ORDER BY url").map {
        ($0["url"], $0["n"])
      }
    }
  }

  /// Spooled rows in delivery order (by id), at most `limit` (`monitor spool list`).
  public func entries(limit: Int = .max) async throws -> [WebhookDelivery.Entry] {
    try await journal.database.read { db in
      try Row.fetchAll(
        db, sql: "SELECT * FROM webhookSpool ORDER BY id LIMIT ?", arguments: [min(limit, Int(Int32.max))]
      ).map(Self.entry)
    }
  }

  /// The row with this id, if still spooled.
  public func entry(_ id: Int64) async throws -> WebhookDelivery.Entry? {
    try await journal.database.read { db in
      try Row.fetchOne(db, sql: "SELECT * FROM webhookSpool WHERE id = ?", arguments: [id]).map(Self.entry)
    }
  }

  /// Deletes the rows with these ids (`monitor spool drop`); returns how many there were.
  public func drop(ids: [Int64]) async throws -> Int {
    try await journal.database.write { db in
      var n = 0
      for id in ids {
        try db.execute(sql: "DELETE FROM webhookSpool WHERE id = ?", arguments: [id])
        n += db.changesCount
      }
      return n
    }
  }

  /// Deletes every row, or every row for `url` (`monitor spool drop --all`); returns how many went.
  public func dropAll(url: String? = nil) async throws -> Int {
    try await journal.database.write { db in
      if let url {
        try db.execute(sql: "DELETE FROM webhookSpool WHERE url = ?", arguments: [url])
      } else {
        try db.execute(sql: "DELETE FROM webhookSpool")
      }
      return db.changesCount
    }
  }

  static func entry(_ row: Row) -> WebhookDelivery.Entry {
    WebhookDelivery.Entry(
      id: row["id"],
      item: WebhookDelivery.Item(
        url: row["url"], idempotencyKey: row["idempotencyKey"], orderKey: row["orderKey"], body: row["body"]),
      attempts: row["attempts"], createdAt: row["createdAt"], lastError: row["lastError"])
  }
}
