/// The zip I/O edge of package reading (docs/protocols/nordic-dfu.md §1.1): a flat list of entries with their sizes, and
/// the bytes of one entry. `LibzipArchive` reads real files; `InMemoryArchive` serves tests and the
/// simulator. Everything above this protocol is pure.
public protocol PackageArchive {
  /// Every entry as stored (names exactly as in the central directory).
  var entries: [ArchiveEntry] { get }
  /// The bytes of the named entry. Implementations enforce `ArchiveLimits` while reading.
  func read(_ name: String) throws(PackageError) -> [UInt8]
}

/// One entry of a package archive.
public struct ArchiveEntry: Equatable, Sendable {
  public var name: String
  /// Uncompressed size.
  public var size: UInt64
  /// Stored (compressed) size.
  public var compressedSize: UInt64

  public init(name: String, size: UInt64, compressedSize: UInt64) {
    self.name = name
    self.size = size
    self.compressedSize = compressedSize
  }
}

/// Zip-safety caps (§1.4 item 1, brief): a DFU package is three to five small files. [I] The numbers are
/// our choice: nRF52 flash is at most 1 MiB, so 4 MiB per entry and 8 MiB in total leave room; a
/// compression ratio above 100:1 on a non-trivial entry is treated as a zip bomb.
public struct ArchiveLimits: Equatable, Sendable {
  public var maximumEntries = 16
  public var maximumEntrySize: UInt64 = 4 << 20
  public var maximumTotalSize: UInt64 = 8 << 20
  public var maximumCompressionRatio: UInt64 = 100
  /// Entries smaller than this are exempt from the ratio check (a 1-byte file can compress "infinitely").
  public var ratioCheckThreshold: UInt64 = 64 << 10
  /// The largest package file opened at all, checked from its size before libzip reads it (a `--package`
  /// file was the one operator input without a cap). [I] Twice the total unpacked size: a zip stores its
  /// entries at most slightly larger than they are, so anything bigger holds something else.
  public var maximumFileSize: UInt64 = 16 << 20

  public init() {}

  /// Checks names and sizes of every entry before anything is decompressed.
  public func check(_ entries: [ArchiveEntry]) throws(PackageError) {
    guard entries.count <= maximumEntries else { throw .tooManyEntries(entries.count) }
    var seen = Set<String>()
    var total: UInt64 = 0
    for entry in entries {
      guard ArchiveLimits.isSafeName(entry.name) else { throw .unsafeEntryName(entry.name) }
      guard seen.insert(entry.name).inserted else { throw .duplicateEntry(entry.name) }
      guard entry.size <= maximumEntrySize else { throw .entryTooLarge(entry.name, entry.size) }
      total += entry.size
      guard total <= maximumTotalSize else { throw .packageTooLarge(total) }
      if entry.size >= ratioCheckThreshold {
        guard entry.compressedSize > 0, entry.size / entry.compressedSize <= maximumCompressionRatio else {
          throw .suspiciousCompression(entry.name)
        }
      }
    }
  }

  /// A safe name is relative, has no `..`/empty components, no backslash, no NUL or control characters.
  public static func isSafeName(_ name: String) -> Bool {
    guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\") else { return false }
    guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return false }
    if name.count >= 2, name.dropFirst().first == ":" { return false }  // "C:..." drive prefix
    let parts = name.split(separator: "/", omittingEmptySubsequences: false)
    for (i, part) in parts.enumerated() {
      if part == ".." || part == "." { return false }
      if part.isEmpty && i != parts.count - 1 { return false }
    }
    return true
  }
}

/// An archive held in memory: tests build packages (tampered, truncated, hostile) without touching disk.
public struct InMemoryArchive: PackageArchive, Sendable {
  public var files: [(name: String, bytes: [UInt8])]

  public init(_ files: [(name: String, bytes: [UInt8])]) { self.files = files }

  public var entries: [ArchiveEntry] {
    files.map { ArchiveEntry(name: $0.name, size: UInt64($0.bytes.count), compressedSize: UInt64($0.bytes.count)) }
  }

  public func read(_ name: String) throws(PackageError) -> [UInt8] {
    guard let file = files.first(where: { $0.name == name }) else { throw .missingFile(name) }
    return file.bytes
  }
}
