import BeaconCore
import Foundation
import JSON
import Synchronization
import Testing

@testable import Fleet

/// `gatt-cache.json`: its bytes, what it refuses, and several writers at once (each `GATTCacheFile` has
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

  @Test func theFormatRoundTripsAndNamesDevicesByAddressAndType() throws {
    let entries = [Self.entry(1), Self.entry(2, hash: false)]
    let bytes = try GATTCacheFileFormat.encode(Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0) }))
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(
      text.hasPrefix(#"{"devices":{"C4:00:00:00:00:01/random":{"databaseHash":"0102030405060708090A0B0C0D0E0F10""#))
    #expect(text.hasSuffix(#""version":1}"#))
    #expect(text.contains(#""C4:00:00:00:00:02/public":{"services""#))
    let back = try GATTCacheFileFormat.decode(bytes)
    #expect(back.count == 2)
    #expect(back[entries[0].key] == entries[0])
    #expect(back[entries[1].key] == entries[1])
    #expect(back[entries[1].key]?.databaseHash == nil)
  }

  @Test func aFileOfAnotherVersionOrWithABadEntryIsRefusedWhole() throws {
    #expect(throws: JSONDiagnostic.self) {
      try GATTCacheFileFormat.decode(Array(#"{"version":2,"devices":{}}"#.utf8))
    }
    #expect(throws: JSONDiagnostic.self) { try GATTCacheFileFormat.decode(Array("not json".utf8)) }
    let good = try GATTCacheFileFormat.encode([Self.entry(1).key: Self.entry(1)])
    let badKey = String(decoding: good, as: UTF8.self).replacingOccurrences(of: "/random", with: "/static")
    #expect(throws: JSONDiagnostic.self) { try GATTCacheFileFormat.decode(Array(badKey.utf8)) }
    let badHash = String(decoding: good, as: UTF8.self).replacingOccurrences(of: "0102030405", with: "01")
    #expect(throws: JSONDiagnostic.self) { try GATTCacheFileFormat.decode(Array(badHash.utf8)) }
  }

  /// The one error shape of every file the tool reads: a misspelt key and broken JSON name the file, line,
  /// column and JSON path, the key with the closest known one.
  @Test func aMisspeltKeyAndBrokenJSONSayWhereAndSuggest() throws {
    let misspelt = "{\"version\": 1,\n \"devise\": {}}"
    do {
      _ = try GATTCacheFileFormat.decode(Array(misspelt.utf8), file: "gatt-cache.json")
      Issue.record("accepted a misspelt key")
    } catch {
      #expect(
        error.description
          == #"gatt-cache.json:2:2: $.devise: unknown key "devise" — did you mean "devices"? (allowed: version, devices)"#
      )
    }
    do {
      _ = try GATTCacheFileFormat.decode(Array(#"{"version": 1, "devices": {"#.utf8), file: "gatt-cache.json")
      Issue.record("accepted broken JSON")
    } catch {
      #expect(error.description.hasPrefix("gatt-cache.json:1:28: $: not valid JSON: "), "\(error)")
    }
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
    let path = try Self.folder() + "/state/beacon-provision/gatt-cache.json"
    let warnings = WarningLog()
    let file = GATTCacheFile(path: path) { warnings.add($0) }
    #expect(await file.entry(for: Self.entry(1).key) == nil)
    await file.save(Self.entry(1))
    #expect(warnings.lines.isEmpty)
    #expect(await GATTCacheFile(path: path).entry(for: Self.entry(1).key) == Self.entry(1))
  }

  @Test func aDamagedFileIsAnEmptyCacheAndIsReplaced() async throws {
    let path = try Self.folder() + "/gatt-cache.json"
    try Data("{damaged".utf8).write(to: URL(fileURLWithPath: path))
    let warnings = WarningLog()
    let file = GATTCacheFile(path: path) { warnings.add($0) }
    #expect(await file.entry(for: Self.entry(1).key) == nil)
    #expect(warnings.lines.count == 1)
    await file.save(Self.entry(1))
    #expect(try GATTCacheFileFormat.decode(Array(FileManager.default.contents(atPath: path)!)).count == 1)
  }

  /// Two writers (two processes' worth: separate actors, separate lock descriptors) saving and dropping
  /// at once: the file always decodes and ends with every entry either kept, none lost to the other's
  /// stale copy.
  @Test func twoWritersAtOnceLoseNothing() async throws {
    let path = try Self.folder() + "/gatt-cache.json"
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
            #expect(throws: Never.self) { _ = try GATTCacheFileFormat.decode(Array(data)) }
          }
          try? await Task.sleep(for: .milliseconds(2))
        }
      }
    }
    await a.drop(Self.entry(4).key)
    let final = try GATTCacheFileFormat.decode(Array(FileManager.default.contents(atPath: path)!))
    #expect(final.count == 39)
    #expect(final[Self.entry(4).key] == nil)
    #expect(final[Self.entry(5).key] == Self.entry(5))
    // A third process starting now sees both writers' entries.
    #expect(await GATTCacheFile(path: path).entry(for: Self.entry(7).key) == Self.entry(7))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
    #expect(leftovers.sorted() == ["gatt-cache.json", "gatt-cache.json.lock"])
  }
}

/// Warnings collected from any thread.
final class WarningLog: Sendable {
  private let storage = Mutex<[String]>([])
  func add(_ line: String) { storage.withLock { $0.append(line) } }
  var lines: [String] { storage.withLock { $0 } }
}
