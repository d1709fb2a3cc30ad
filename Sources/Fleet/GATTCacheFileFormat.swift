import BeaconCore
import Foundation
import JSON

/// The bytes of `gatt-cache.jsonl` (`GATTCacheFile`), version 2: JSON Lines, a header and then one record
/// per change, so that saving a device appends one line instead of rewriting every device's entry (version 1,
/// one JSON object, made a 100-device campaign's saves cost O(devices²)):
///
/// ```
/// {"version":2}
/// {"device":"AA:BB:CC:DD:EE:FF/random","entry":{"databaseHash":"32 hex digits","serviceChangedHandle":8,
///   "services":[{"uuid":"FEA0","startHandle":22,"endHandle":29,"isPrimary":true,"includes":[],
///   "characteristics":[{"uuid":"FEA1","properties":12,"declarationHandle":23,"valueHandle":24,…}]}]}}
/// {"device":"AA:BB:CC:DD:EE:FF/random","dropped":true}
/// ```
///
/// (each record on one line). The last record of a device wins; `dropped` forgets it. `services` are
/// `GATTService` values as discovery found them; `databaseHash` is absent for a device that has none.
/// A file whose header is not version 2 is refused whole; a record that cannot be read (a line torn by a
/// crash, a hand edit) is skipped with a `JSONDiagnostic` naming the file, its line and column and the JSON
/// path — which is safe for a cache, since every entry is checked against the device before it is used, so
/// the worst a skipped line costs is a discovery.
public enum GATTCacheFileFormat {
  public static let version = 2

  /// What a file holds: the devices' entries after every record, how many records it has (the writer
  /// compacts a file that holds many more records than devices), and the records skipped.
  public struct Contents: Sendable {
    public var entries: [GATTCacheKey: GATTCacheEntry] = [:]
    public var records = 0
    public var skipped: [JSONDiagnostic] = []
  }

  struct Header: Codable { var version: Int }

  struct Record: Codable {
    var device: String
    var entry: Device?
    var dropped: Bool?
  }

  struct Device: Codable {
    var databaseHash: String?
    var serviceChangedHandle: UInt16?
    var services: [GATTService]
  }

  /// The header line, with its newline.
  public static func header() throws -> [UInt8] { try line(Header(version: version)) }

  /// One record: `entry` saved for `key`, or nil for a dropped one.
  public static func record(_ key: GATTCacheKey, _ entry: GATTCacheEntry?) throws -> [UInt8] {
    let device = entry.map {
      Device(
        databaseHash: $0.databaseHash.map { Hex.encode($0) }, serviceChangedHandle: $0.serviceChangedHandle,
        services: $0.services)
    }
    return try line(Record(device: key.description, entry: device, dropped: entry == nil ? true : nil))
  }

  /// A whole file holding `entries` and nothing else (a new or compacted file), devices in address order.
  public static func encode(_ entries: [GATTCacheKey: GATTCacheEntry]) throws -> [UInt8] {
    var bytes = try header()
    for (key, entry) in entries.sorted(by: { $0.key.description < $1.key.description }) {
      bytes += try record(key, entry)
    }
    return bytes
  }

  private static func line(_ value: some Encodable) throws -> [UInt8] {
    Array(try JSONValueEncoder().text(value).utf8) + [0x0A]
  }

  /// The entries of a file. A missing or wrong header throws; a record that cannot be read is skipped and
  /// listed in `skipped`. An empty file is an empty cache (a writer has created it and not yet written).
  public static func decode(_ bytes: [UInt8], file: String = "gatt-cache.jsonl") throws(JSONDiagnostic) -> Contents {
    guard !bytes.isEmpty else { return Contents() }
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    let decoder = JSONFileDecoder(file: file)
    let root = try decoder.parse(lines.first ?? [])
    let header = try decoder.decode(Header.self, from: root)
    guard header.version == version else {
      throw decoder.problem(
        at: JSONPath.root.appending("version"), in: root, "version \(header.version) is not read by this version",
        allowed: "\(version)")
    }
    var contents = Contents()
    for (index, text) in lines.enumerated().dropFirst() where !text.isEmpty {
      contents.records += 1
      do {
        let (key, entry) = try decodeRecord(Array(text), decoder: decoder)
        contents.entries[key] = entry
      } catch {
        var diagnostic = error
        diagnostic.position?.line = index + 1
        contents.skipped.append(diagnostic)
      }
    }
    return contents
  }

  /// One record line: the device's key and its entry, nil when the record drops it.
  static func decodeRecord(_ text: [UInt8], decoder: JSONFileDecoder) throws(JSONDiagnostic)
    -> (GATTCacheKey, GATTCacheEntry?)
  {
    let root = try decoder.parse(text)
    let record = try decoder.decode(Record.self, from: root)
    guard let key = GATTCacheKey(record.device) else {
      throw decoder.problem(at: JSONPath.root.appending("device"), in: root, "not ADDRESS/public or ADDRESS/random")
    }
    switch (record.entry, record.dropped) {
    case (nil, true?):
      return (key, nil)
    case (let device?, nil):
      var hash: [UInt8]? = nil
      if let text = device.databaseHash {
        guard let bytes = Hex.decode(text), bytes.count == 16 else {
          throw decoder.problem(
            at: JSONPath.root.appending("entry").appending("databaseHash"), in: root, "not 32 hex digits")
        }
        hash = bytes
      }
      let entry = GATTCacheEntry(
        key: key, databaseHash: hash, services: device.services, serviceChangedHandle: device.serviceChangedHandle)
      return (key, entry)
    default:
      throw decoder.problem(at: .root, in: root, "a record holds either an entry or \"dropped\": true")
    }
  }
}

extension GATTCacheFileFormat.Header {
  init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(known: ["version"])
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(version: try c.decode(Int.self, forKey: .version))
  }
}

extension GATTCacheFileFormat.Record {
  /// The synthesized reading, after refusing a key it does not know (a misspelt key is named with the closest
  /// known one).
  init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(known: ["device", "entry", "dropped"])
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      device: try c.decode(String.self, forKey: .device),
      entry: try c.decodeIfPresent(GATTCacheFileFormat.Device.self, forKey: .entry),
      dropped: try c.decodeIfPresent(Bool.self, forKey: .dropped))
  }
}
