import CLibPQ
import Foundation

/// The connection as a body run by `PostgresConnection.session(_:)` sees it: synchronous, on the
/// connection's own queue. Values only ever travel as parameters of `PQexecParams` (text format), never
/// spliced into SQL; `script` is for fixed DDL without values (migrations).
public struct PostgresSession {
  let pointer: OpaquePointer
  let location: String

  /// Runs one statement with `$1…$n` parameters (`nil` is SQL NULL) and returns its rows as text.
  @discardableResult
  public func query(_ sql: String, _ parameters: [String?] = []) throws -> PostgresRows {
    let copies = parameters.map { $0.map { strdup($0) } ?? nil }
    defer { for copy in copies { free(copy) } }
    let values: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
    let result = values.withUnsafeBufferPointer { buffer in
      PQexecParams(pointer, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
    }
    return try rows(of: result)
  }

  /// Runs fixed SQL (several statements allowed) that carries no values.
  public func script(_ sql: String) throws {
    _ = try rows(of: PQexec(pointer, sql))
  }

  /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
  public func transaction<T>(_ body: () throws -> T) throws -> T {
    try script("BEGIN")
    do {
      let value = try body()
      try script("COMMIT")
      return value
    } catch {
      _ = try? script("ROLLBACK")
      throw error
    }
  }

  private func rows(of result: OpaquePointer?) throws -> PostgresRows {
    guard let result else {
      throw PostgresError(location: location, message: String(cString: PQerrorMessage(pointer)), sqlState: nil)
    }
    defer { PQclear(result) }
    let status = PQresultStatus(result)
    guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
      let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
      throw PostgresError(location: location, message: String(cString: PQresultErrorMessage(result)), sqlState: state)
    }
    let columns = (0..<PQnfields(result)).map { String(cString: PQfname(result, $0)) }
    let rows = (0..<PQntuples(result)).map { row in
      (0..<PQnfields(result)).map { column -> String? in
        PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
      }
    }
    return PostgresRows(columns: columns, rows: rows, affected: Int(String(cString: PQcmdTuples(result))) ?? 0)
  }
}

/// A statement's result as text, by column name.
public struct PostgresRows: Sendable {
  public var columns: [String]
  public var rows: [[String?]]
  /// Rows an INSERT/UPDATE/DELETE touched.
  public var affected: Int

  /// Each row as a dictionary from column name to its text (NULL absent).
  public var records: [[String: String]] {
    rows.map { row in
      var record: [String: String] = [:]
      for (name, value) in zip(columns, row) { record[name] = value }
      return record
    }
  }
}

/// The server refused or could not be reached. `location` is the redacted URL: no password in any message.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
  public var location: String
  public var message: String
  /// SQLSTATE when the server answered (e.g. "55P03" lock not available).
  public var sqlState: String?
  public var description: String {
    "PostgreSQL journal \(location): \(message.trimmingCharacters(in: .whitespacesAndNewlines))"
  }
}
