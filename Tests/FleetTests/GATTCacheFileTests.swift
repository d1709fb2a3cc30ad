import BeaconCore
import Foundation
import JSON
import Synchronization
import Testing

@testable import Fleet

/// `gatt-cache.jsonl`: its bytes, what it refuses, and several writers at once (each `GATTCacheFile` has
/// its own lock descriptor, as separate processes do, so `flock` sets them against one another the same
/// way).
@Suite(.timeLimit(.minutes(2))) struct GATTCacheFileTests {
  static func entry(_ n: UInt64, hash: Bool = true) -> GATTCacheEntry {
    let key = GATTCacheKey(
      address: BluetoothAddress(rawValue: 0xC400_0000_0000 + n), type: n % 2 == 0 ? .public : .random)
    let service = GATTService(
      uuid: BluetoothUUID(0xFEA0), startHandle: 22, endHandle: 27,
      characteristics: [
        GATTCharacteristic(
          uuid: BluetoothUUID(0xFEA1), properties: [.write, .writeWithoutResponse], declarationHandle: 23,
          valueHandle: 24, endHandle: 24),
        GATTCharacteristic(
          uuid: BluetoothUUID(0xFEA2), properties: [.notify], declarationHandle: 25, valueHandle: 26, endHandle: 27,
          descriptors: [GATTDescriptor(uuid: GATTAttributeType.clientCharacteristicConfiguration, handle: 27)]),
      ])
    return GATTCacheEntry(
      key: key, databaseHash: hash ? (0..<16).map { UInt8(truncatingIfNeeded: Int(n) + $0) } : nil, services: [service],
      serviceChangedHandle: hash ? 8 : nil)
  }

  static func folder() throws -> String {
    let path = NSTemporaryDirectory() + "gatt-cache-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  static func decode(_ path: String) throws -> GATTCacheFileFormat.Contents {
    try GATTCacheFileFormat.decode(Array(try #require(FileManager.default.contents(atPath: path))), file: path)
  }

  @Test func theFormatRoundTripsAndNamesDevicesByAddressAndType() throws {
    let entries = [Self.entry(1), Self.entry(2, hash: false)]
    let bytes = try GATTCacheFileFormat.encode(Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0) }))
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 4 && lines[0] == #"{"version":2}"# && lines[3].isEmpty)
    #expect(
      lines[1].hasPrefix(
        #"{"device":"C4:00:00:00:00:01/random","entry":{"databaseHash":"0102030405060708090A0B0C0D0E0F10""#))
    #expect(lines[2].hasPrefix(#"{"device":"C4:00:00:00:00:02/public","entry":{"services""#))
    let back = try GATTCacheFileFormat.decode(bytes)
    #expect(back.entries.count == 2 && back.records == 2 && back.skipped.isEmpty)
    #expect(back.entries[entries[0].key] == entries[0])
    #expect(back.entries[entries[1].key] == entries[1])
    #expect(back.entries[entries[1].key]?.databaseHash == nil)
  }

  /// The last record of a device wins; a `dropped` record forgets it.
  @Test func theLastRecordWinsAndADroppedRecordForgets() throws {
    let changed = GATTCacheEntry(
      key: Self.entry(1).key, databaseHash: Array(repeating: 7, count: 16), services: Self.entry(1).services,
      serviceChangedHandle: 9)
    let bytes =
      try GATTCacheFileFormat.header() + GATTCacheFileFormat.record(Self.entry(1).key, Self.entry(1))
      + GATTCacheFileFormat.record(Self.entry(2).key, Self.entry(2))
      + GATTCacheFileFormat.record(Self.entry(1).key, changed) + GATTCacheFileFormat.record(Self.entry(2).key, nil)
    #expect(
      String(decoding: bytes, as: UTF8.self).hasSuffix(#"{"device":"C4:00:00:00:00:02/public","dropped":true}"# + "\n"))
    let back = try GATTCacheFileFormat.decode(bytes)
    #expect(back.entries == [changed.key: changed] && back.records == 4)
  }

  /// A header of another version, or no header, refuses the file whole; a record that cannot be read is
  /// skipped and named by its line.
  @Test func aBadHeaderRefusesTheFileAndABadRecordIsSkipped() throws {
    #expect(throws: JSONDiagnostic.self) { try GATTCacheFileFormat.decode(Array("{\"version\":1}\n".utf8)) }
    #expect(throws: JSONDiagnostic.self) { try GATTCacheFileFormat.decode(Array("not json".utf8)) }
    let good = String(decoding: try GATTCacheFileFormat.record(Self.entry(1).key, Self.entry(1)), as: UTF8.self)
    let header = String(decoding: try GATTCacheFileFormat.header(), as: UTF8.self)
    let badKey = good.replacingOccurrences(of: "/random", with: "/static")
    let badHash = good.replacingOccurrences(of: "0102030405", with: "01")
    let neither = #"{"device":"C4:00:00:00:00:03/random"}"# + "\n"
    let text =
      header + badKey + badHash + neither
      + String(decoding: try GATTCacheFileFormat.record(Self.entry(2).key, Self.entry(2)), as: UTF8.self)
    let back = try GATTCacheFileFormat.decode(Array(text.utf8), file: "gatt-cache.jsonl")
    #expect(back.entries == [Self.entry(2).key: Self.entry(2)] && back.records == 4)
    #expect(back.skipped.map { $0.position?.line } == [2, 3, 4])
    #expect(back.skipped[0].description.hasPrefix("gatt-cache.jsonl:2:"), "\(back.skipped[0])")
    #expect(back.skipped[1].path == JSONPath.root.appending("entry").appending("databaseHash"))
  }

  /// The one error shape of every file the tool reads: a misspelt key and broken JSON name the file, line,
  /// column and JSON path, the key with the closest known one.
  @Test func aMisspeltKeyAndBrokenJSONSayWhereAndSuggest() throws {
    do {
      _ = try GATTCacheFileFormat.decode(Array("{\"verison\": 2}\n".utf8), file: "gatt-cache.jsonl")
      Issue.record("accepted a misspelt key")
    } catch {
      #expect(
        error.description
          == #"gatt-cache.jsonl:1:2: $.verison: unknown key "verison" — did you mean "version"? (allowed: version)"#)
    }
    let text = "{\"version\":2}\n {\"devise\": \"C4:00:00:00:00:01/random\", \"dropped\": true}\n{\"device\": \"C4"
    let back = try GATTCacheFileFormat.decode(Array(text.utf8), file: "gatt-cache.jsonl")
    #expect(back.skipped.count == 2)
    #expect(
      back.skipped.first?.description
        == #"gatt-cache.jsonl:2:3: $.devise: unknown key "devise" — did you mean "device"? (allowed: device, entry, dropped)"#
    )
    #expect(back.skipped.last?.description.hasPrefix("gatt-cache.jsonl:3:") == true, "\(back.skipped)")
  }

  /// An entry that does not account for every handle of its service is never used without a hash.
  @Test func anEntryWithAHoleInItsServiceExpectsNothing() {
    var entry = Self.entry(3, hash: false)
    #expect(entry.expectedAttributes(of: entry.services[0])?.count == 6)
    entry.services[0].endHandle = 28
    #expect(entry.expectedAttributes(of: entry.services[0]) == nil)
  }

  /// A fresh state directory: the folder does not exist yet when the first entry is saved.
  @Test func theFirstSaveMakesTheStateDirectory() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/state/beacon-provision/gatt-cache.jsonl"
    let warnings = WarningLog()
    let file = GATTCacheFile(path: path) { warnings.add($0) }
    #expect(await file.entry(for: Self.entry(1).key) == nil)
    await file.save(Self.entry(1))
    #expect(warnings.lines.isEmpty)
    #expect(await GATTCacheFile(path: path).entry(for: Self.entry(1).key) == Self.entry(1))
  }

  @Test func aDamagedFileIsAnEmptyCacheAndIsReplaced() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/gatt-cache.jsonl"
    try Data("{damaged".utf8).write(to: URL(fileURLWithPath: path))
    let warnings = WarningLog()
    let file = GATTCacheFile(path: path) { warnings.add($0) }
    #expect(await file.entry(for: Self.entry(1).key) == nil)
    #expect(warnings.lines.count == 1)
    await file.save(Self.entry(1))
    #expect(try Self.decode(path).entries.count == 1)
  }

  /// Saving appends: the file stays the same file (no rename) and grows by one line per save; a line a
  /// crash left unfinished is skipped, reported, and the next record starts on a line of its own.
  @Test func aSaveAppendsOneLineAndATornLastLineIsEndedFirst() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/gatt-cache.jsonl"
    let file = GATTCacheFile(path: path)
    _ = await file.entry(for: Self.entry(0).key)
    await file.save(Self.entry(0))
    let inode = try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
    for n in 1..<10 { await file.save(Self.entry(UInt64(n))) }
    #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 == inode)
    #expect(try Self.decode(path).records == 10)

    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(#"{"device":"C4:00:00:00:00:0B/random","ent"#.utf8))
    try handle.close()
    let warnings = WarningLog()
    let later = GATTCacheFile(path: path) { warnings.add($0) }
    #expect(await later.entry(for: Self.entry(3).key) == Self.entry(3))
    #expect(warnings.lines.count == 1 && warnings.lines[0].contains(":12:"), "\(warnings.lines)")
    await later.save(Self.entry(12))
    let contents = try Self.decode(path)
    #expect(contents.entries.count == 11 && contents.entries[Self.entry(12).key] == Self.entry(12))
    #expect(contents.skipped.map { $0.position?.line } == [12])
  }

  /// A device saved again and again: the file is compacted once it holds more than twice as many records
  /// as devices (plus 64), so it never grows without bound, and holds the last entry.
  @Test func manyRecordsOfFewDevicesAreCompacted() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/gatt-cache.jsonl"
    let file = GATTCacheFile(path: path)
    _ = await file.entry(for: Self.entry(0).key)
    for round in 0..<150 {
      await file.save(Self.entry(0))
      await file.save(Self.entry(1, hash: round % 2 == 0))
    }
    let contents = try Self.decode(path)
    #expect(contents.records <= 2 * 2 + 64 + 1, "\(contents.records) records")
    #expect(contents.entries == [Self.entry(0).key: Self.entry(0), Self.entry(1).key: Self.entry(1, hash: false)])
  }

  /// Two writers (two processes' worth: separate actors, separate lock descriptors) saving and dropping
  /// at once: the file always decodes and ends with every entry either kept, none lost to the other's
  /// stale copy.
  @Test func twoWritersAtOnceLoseNothing() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/gatt-cache.jsonl"
    let a = GATTCacheFile(path: path)
    let b = GATTCacheFile(path: path)
    _ = await a.entry(for: Self.entry(0).key)
    _ = await b.entry(for: Self.entry(0).key)
    await withTaskGroup(of: Void.self) { group in
      for n in 0..<40 {
        let writer = n % 2 == 0 ? a : b
        group.addTask { await writer.save(Self.entry(UInt64(n), hash: n % 3 != 0)) }
      }
      group.addTask {
        for _ in 0..<20 {
          if let data = FileManager.default.contents(atPath: path) {
            // Read without the lock, as a starting process does: the last line may be one being written.
            let lines = data.split(separator: 0x0A).count
            let contents = try? GATTCacheFileFormat.decode(Array(data))
            #expect(contents?.skipped.allSatisfy { $0.position?.line == lines } == true)
          }
          try? await Task.sleep(for: .milliseconds(2))
        }
      }
    }
    await a.drop(Self.entry(4).key)
    let final = try Self.decode(path).entries
    #expect(final.count == 39)
    #expect(final[Self.entry(4).key] == nil)
    #expect(final[Self.entry(5).key] == Self.entry(5))
    // A third process starting now sees both writers' entries.
    #expect(await GATTCacheFile(path: path).entry(for: Self.entry(7).key) == Self.entry(7))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
    #expect(leftovers.sorted() == ["gatt-cache.jsonl", "gatt-cache.jsonl.lock"])
  }
}

/// Warnings collected from any thread.
final class WarningLog: Sendable {
  private let storage = Mutex<[String]>([])
  func add(_ line: String) { storage.withLock { $0.append(line) } }
  var lines: [String] { storage.withLock { $0 } }
}
