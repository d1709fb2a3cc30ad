import CZip
import Glibc
import NordicDFU

/// A package archive read from a zip file through libzip (`CZip`) — the only file I/O of package reading.
/// Entry names and sizes are checked against `ArchiveLimits` when the archive opens, and every read stops
/// at the declared size, so a lying header cannot make us decompress more than the caps allow. A file larger
/// than `ArchiveLimits.maximumFileSize` is refused from its size before libzip opens it.
public final class LibzipArchive: PackageArchive {
  private let handle: OpaquePointer
  public let entries: [ArchiveEntry]
  private let limits: ArchiveLimits

  /// Opens `path` read-only (with libzip's consistency checks) and checks the entries.
  public init(path: String, limits: ArchiveLimits = ArchiveLimits()) throws(PackageError) {
    var status = stat()
    if stat(path, &status) == 0, UInt64(max(0, status.st_size)) > limits.maximumFileSize {
      throw .fileTooLarge(UInt64(status.st_size), limits.maximumFileSize)
    }
    var error: Int32 = 0
    guard let handle = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &error) else {
      throw .unreadableArchive(Self.describe(code: error))
    }
    let count = zip_get_num_entries(handle, 0)
    guard count >= 0 else {
      zip_discard(handle)
      throw .unreadableArchive("no central directory")
    }
    guard count <= Int64(limits.maximumEntries) else {
      zip_discard(handle)
      throw .tooManyEntries(Int(count))
    }
    var list: [ArchiveEntry] = []
    for index in 0..<UInt64(count) {
      var st = zip_stat_t()
      zip_stat_init(&st)
      guard zip_stat_index(handle, index, ZIP_FL_ENC_GUESS, &st) == 0, let cName = st.name,
        st.valid & bp_zip_stat_size != 0, st.valid & bp_zip_stat_comp_size != 0
      else {
        zip_discard(handle)
        throw .unreadableArchive("entry \(index) has no name or size")
      }
      list.append(ArchiveEntry(name: String(cString: cName), size: st.size, compressedSize: st.comp_size))
    }
    do {
      try limits.check(list)
    } catch {
      zip_discard(handle)
      throw error
    }
    // Stored properties are set only once nothing can fail, so `deinit` owns the handle alone.
    self.handle = handle
    self.limits = limits
    self.entries = list
  }

  deinit { zip_discard(handle) }

  public func read(_ name: String) throws(PackageError) -> [UInt8] {
    guard let entry = entries.first(where: { $0.name == name }) else { throw .missingFile(name) }
    guard entry.size <= limits.maximumEntrySize else { throw .entryTooLarge(name, entry.size) }
    guard let file = zip_fopen(handle, name, ZIP_FL_ENC_GUESS) else {
      throw .unreadableArchive("cannot open \(name): \(String(cString: zip_strerror(handle)))")
    }
    defer { zip_fclose(file) }
    var bytes = [UInt8](repeating: 0, count: Int(entry.size) + 1)
    var filled = 0
    while filled < bytes.count {
      let n = bytes.withUnsafeMutableBytes { buffer in
        zip_fread(file, buffer.baseAddress! + filled, UInt64(buffer.count - filled))
      }
      if n < 0 { throw .unreadableArchive("\(name): \(String(cString: zip_file_strerror(file)))") }
      if n == 0 { break }
      filled += Int(n)
    }
    guard filled == Int(entry.size) else { throw .unreadableArchive("\(name): size differs from its header") }
    bytes.removeLast()
    return bytes
  }

  private static func describe(code: Int32) -> String {
    var error = zip_error_t()
    zip_error_init_with_code(&error, code)
    defer { zip_error_fini(&error) }
    return String(cString: zip_error_strerror(&error))
  }
}
