import Foundation
import Synchronization

/// The temporary folders the tests made (`LocalTools.temporaryDirectory`), removed when the test process
/// exits: 2,134 `bp-*` folders (downloads, nginx prefixes, certificate authorities) had piled up in one
/// machine's /tmp, run after run. Removed at exit rather than by each test so a server a test left running
/// until the end (a suite's nginx) keeps its prefix while it lives. `BP_KEEP_TEST_FOLDERS=1` keeps them.
public enum TemporaryFolders {
  private static let registered = Mutex<(paths: [String], hooked: Bool)>(([], false))

  /// Removes `path` (and what is in it) when the process exits.
  public static func removeAtExit(_ path: String) {
    let hook = registered.withLock { state -> Bool in
      state.paths.append(path)
      defer { state.hooked = true }
      return !state.hooked
    }
    if hook { atexit { TemporaryFolders.removeAll() } }
  }

  /// Removes every registered folder, unless `BP_KEEP_TEST_FOLDERS=1`.
  static func removeAll() {
    guard ProcessInfo.processInfo.environment["BP_KEEP_TEST_FOLDERS"] != "1" else { return }
    let paths = registered.withLock { state in
      defer { state.paths = [] }
      return state.paths
    }
    for path in paths { try? FileManager.default.removeItem(atPath: path) }
  }
}
