import HTTP
import NordicDFU
import Synchronization

/// The SHA-256 of a package computed while it downloads (`DownloadObserver`), so verifying it does not read
/// the whole file again: `firmware fetch` read a large package back to hash it after writing it.
///
/// The hash follows the file as written: bytes at the end of what it has hashed extend it; bytes at offset
/// zero start it again (a server that ignored the Range request, or a restart); anything else — a download
/// resumed from an earlier `.part`, whose first bytes this run never saw — leaves it unusable, and the file
/// is then hashed from disk as before. `digest(fileSize:)` gives the hash only when it covered exactly the
/// file's bytes.
final class DownloadHash: DownloadObserver {
  private struct State: ~Copyable {
    var stream = SHA256Stream()
    var count: Int64 = 0
    var usable = true
  }

  /// Mutex-guarded: `wrote` runs on the transfer's thread, `digest` on the caller's after the download.
  private let state = Mutex(State())

  init() {}

  func wrote(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
    // A copy (at most libcurl's 16 KiB write size): the raw buffer is not Sendable, so it cannot enter the
    // mutex's region itself.
    let piece = Array(bytes)
    state.withLock { s in
      if offset == 0, s.count != 0 {
        s.stream = SHA256Stream()
        s.count = 0
        s.usable = true
      }
      guard s.usable, offset == s.count else {
        s.usable = false
        return
      }
      s.stream.update(piece)
      s.count += Int64(piece.count)
    }
  }

  /// The digest and size, when the bytes seen are exactly the file's `fileSize` bytes; else nil.
  func digest(fileSize: Int64) -> (digest: [UInt8], count: Int)? {
    state.withLock { s in
      guard s.usable, s.count == fileSize else { return nil }
      s.usable = false
      return (s.stream.finish(), Int(s.count))
    }
  }
}
