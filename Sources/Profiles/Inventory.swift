import BeaconCore
import JSON
import KBeacon

/// Per-device variables for templates, keyed by address, from a CSV or JSON file (the `inventory` section).
///
/// CSV: a header row with an `address` column; an optional `tags` column (tags separated by `;` or
/// spaces); every other column is a variable. Fields may be double-quoted (RFC 4180, `""` for a quote).
/// JSON: an array of objects each with an `"address"` (and optional `"tags"` array), or an object keyed by
/// address whose values are objects of variables. A device's `{{index}}` is its row, counting from 0.
///
/// Only the monitor's inventory (`parse(_:file:identities: true)`) may name a device by its beacon identity
/// instead (`BeaconIdentity`: `ibeacon:UUID:MAJOR:MINOR`, `eddystone:NAMESPACE:INSTANCE`), kept as its
/// canonical text; `apply` and `audit` connect by address, so they refuse such a row with a message that
/// says so.
public struct Inventory: Sendable, Hashable {
  public struct Row: Sendable, Hashable {
    public var address: String
    public var index: Int
    public var variables: [String: String]
    public var tags: Set<String>
    /// Where the row starts in its file (a CSV record's line, a JSON entry's position), for messages.
    public var position: SourcePosition? = nil
  }

  public var rows: [Row] { didSet { positions = Self.positions(rows) } }
  /// Each address's first row in `rows`: a lookup per device is a hash, not a walk through every row (before,
  /// `profile check` of 40,000 rows took 93 s of CPU, 1M rows never finished).
  private var positions: [String: Int]

  public init(rows: [Row] = []) {
    self.rows = rows
    positions = Self.positions(rows)
  }

  /// The row of `address` (any case) or of a canonical identity text, the first one if it is listed twice.
  public func row(for address: String) -> Row? {
    (positions[address] ?? positions[address.uppercased()]).map { rows[$0] }
  }

  static func positions(_ rows: [Row]) -> [String: Int] {
    var positions: [String: Int] = [:]
    positions.reserveCapacity(rows.count)
    for (i, row) in rows.enumerated() where positions[row.address] == nil { positions[row.address] = i }
    return positions
  }

  /// Parses the file by its extension (`.csv`, otherwise JSON). Every problem is reported at once.
  /// `identities`: rows may name a beacon identity instead of an address (the monitor's inventory).
  public static func parse(_ bytes: [UInt8], file: String, identities: Bool = false) throws(ProfileDiagnostics)
    -> Inventory
  {
    var problems: [JSONDiagnostic] = []
    let rows =
      file.lowercased().hasSuffix(".csv")
      ? csv(bytes, file, identities, &problems) : json(bytes, file, identities, &problems)
    var seen: [String: Int] = [:]
    for (position, row) in rows.enumerated() {
      if let first = seen[row.address] {
        let earlier = rows[first]
        let places = earlier.position.flatMap { a in row.position.map { b in "lines \(a.line) and \(b.line)" } }
        problems.append(
          JSONDiagnostic(
            file: file, position: row.position, path: JSONPath([.index(row.index)]),
            message:
              "\(BeaconIdentity.isIntended(row.address) ? "identity" : "address") \(row.address) is listed twice (\(places ?? "rows \(earlier.index) and \(row.index)"))"
          ))
      }
      seen[row.address] = position
    }
    if !problems.isEmpty { throw ProfileDiagnostics(problems, subject: "the inventory") }
    return Inventory(rows: rows)
  }

  /// A row's key from its `address` cell: the upper-case address, or (with `identities`) an identity's
  /// canonical text; nil with the message and allowed values that refuse the cell.
  static func key(_ text: String, identities: Bool) -> (key: String?, message: String, allowed: String) {
    if BluetoothAddressText.isValid(text) { return (text.uppercased(), "", "") }
    guard BeaconIdentity.isIntended(text) else {
      let allowed = identities ? "AA:BB:CC:DD:EE:FF or \(BeaconIdentity.allowed)" : "AA:BB:CC:DD:EE:FF"
      return (nil, "\"\(text.echoed)\" is not a Bluetooth address", allowed)
    }
    guard identities else {
      return (
        nil,
        "\"\(text.echoed)\" names a beacon by identity, which only `monitor --inventory` reads; this command connects by address",
        "AA:BB:CC:DD:EE:FF"
      )
    }
    guard let identity = BeaconIdentity(text) else {
      return (nil, "\"\(text.echoed)\" is not a beacon identity", BeaconIdentity.allowed)
    }
    return (identity.description, "", "")
  }

  static func csv(_ bytes: [UInt8], _ file: String, _ identities: Bool, _ problems: inout [JSONDiagnostic]) -> [Row] {
    // Bytes that are not UTF-8 would become U+FFFD in a name or a variable without a word.
    if let bad = JSONParser.firstInvalidUTF8(bytes) {
      let line = 1 + bytes[..<bad].lazy.filter { $0 == 0x0A }.count
      let lineStart = bytes[..<bad].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
      let column = 1 + bytes[lineStart..<bad].lazy.filter { $0 & 0xC0 != 0x80 }.count
      problems.append(
        JSONDiagnostic(
          file: file, position: SourcePosition(line: line, column: column, offset: bad), path: .root,
          message: "invalid UTF-8 (byte 0x\(String(bytes[bad], radix: 16, uppercase: true))); save the file as UTF-8"))
      return []
    }
    let (records, unterminated) = CSVReader.records(String(decoding: bytes, as: UTF8.self))
    if let line = unterminated {
      // Everything after the opening quote ran into one field: counting that record's fields, or reading
      // the records before it as complete, would only add wrong errors.
      problems.append(
        JSONDiagnostic(
          file: file, position: SourcePosition(line: line, column: 1, offset: 0), path: .root,
          message: "a quoted field that begins on line \(line) has no closing quote (the file ends inside it)",
          allowed: "a field in double quotes ends with a double quote; a quote inside one is written \"\""))
      return []
    }
    guard let header = records.first else {
      problems.append(JSONDiagnostic(file: file, position: nil, path: .root, message: "the inventory is empty"))
      return []
    }
    let names = header.fields.map { $0.trimmingWhitespace }
    guard let addressColumn = names.firstIndex(of: "address") else {
      problems.append(
        JSONDiagnostic(
          file: file, position: SourcePosition(line: 1, column: 1, offset: 0), path: .root,
          message: "the header has no \"address\" column", allowed: "a header row such as address,room,tags"))
      return []
    }
    var rows: [Row] = []
    let data = records.dropFirst().filter { !$0.fields.allSatisfy(\.isEmpty) }
    for (row, record) in data.enumerated() {
      let at = SourcePosition(line: record.line, column: 1, offset: 0)
      guard record.fields.count == names.count else {
        problems.append(
          JSONDiagnostic(
            file: file, position: at, path: JSONPath([.index(row)]),
            message: "\(record.fields.count) fields where the header has \(names.count)"))
        continue
      }
      // Upper-cased first, as before identities (messages show the cell so); an identity's case does not matter.
      let checked = key(record.fields[addressColumn].trimmingWhitespace.uppercased(), identities: identities)
      guard let address = checked.key else {
        problems.append(
          JSONDiagnostic(
            file: file, position: at, path: JSONPath([.index(row), .key("address")]),
            message: checked.message, allowed: checked.allowed))
        continue
      }
      var variables: [String: String] = [:]
      var tags: Set<String> = []
      for (name, value) in zip(names, record.fields) where name != "address" {
        if name == "tags" {
          tags = Set(value.split(whereSeparator: { $0 == ";" || $0 == " " }).map(String.init))
        } else {
          variables[name] = value
        }
      }
      rows.append(Row(address: address, index: row, variables: variables, tags: tags, position: at))
    }
    return rows
  }

  static func json(_ bytes: [UInt8], _ file: String, _ identities: Bool, _ problems: inout [JSONDiagnostic]) -> [Row] {
    let root: SourceJSON
    do { root = try JSONParser.parseWithPositions(bytes) } catch {
      problems.append(
        JSONDiagnostic(
          file: file, position: error.position, path: .root, message: "not valid JSON: \(error.message)"))
      return []
    }
    var entries: [(String, SourceJSON, JSONPath, SourceJSON?)] = []
    switch root.kind {
    case .array(let items):
      for (i, item) in items.enumerated() {
        guard case .object(let members) = item.kind, case .string(let a)? = item["address"]?.kind else {
          problems.append(
            JSONDiagnostic(
              file: file, position: item.position, path: JSONPath([.index(i)]),
              message: "each entry must be an object with an \"address\" string"))
          continue
        }
        let vars = SourceJSON(
          kind: .object(members.filter { $0.key != "address" && $0.key != "tags" }), position: item.position)
        entries.append((a, vars, JSONPath([.index(i)]), item["tags"]))
      }
    case .object(let members):
      for m in members { entries.append((m.key, m.value, JSONPath([.key(m.key)]), m.value["tags"])) }
    default:
      problems.append(
        JSONDiagnostic(
          file: file, position: root.position, path: .root,
          message: "expected an array of devices or an object keyed by address"))
    }
    var rows: [Row] = []
    for (text, vars, path, tagsJSON) in entries {
      let checked = key(text, identities: identities)
      guard let address = checked.key else {
        problems.append(
          JSONDiagnostic(
            file: file, position: vars.position, path: path,
            message: checked.message, allowed: checked.allowed))
        continue
      }
      var variables: [String: String] = [:]
      if case .object(let members) = vars.kind {
        for m in members where m.key != "tags" {
          switch m.value.kind {
          case .string(let s): variables[m.key] = s
          case .number(_, let text): variables[m.key] = text
          case .bool(let b): variables[m.key] = String(b)
          default:
            problems.append(
              JSONDiagnostic(
                file: file, position: m.value.position, path: path.appending(m.key),
                message: "inventory values must be strings, numbers or booleans"))
          }
        }
      }
      var tags: Set<String> = []
      if case .array(let items)? = tagsJSON?.kind {
        tags = Set(items.compactMap { if case .string(let s) = $0.kind { s } else { nil } })
      }
      rows.append(Row(address: address, index: rows.count, variables: variables, tags: tags, position: vars.position))
    }
    return rows
  }
}
