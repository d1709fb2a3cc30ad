import Glibc

/// The name a file is written under before it is renamed over `path` (the GATT cache, the firmware cache, the
/// Info Manager resolve cache): `path` + `.tmp-<pid>-<random>`. The random part keeps it this writer's alone
/// where processes on other hosts or in containers share the folder and may have the same pid; the firmware
/// cache's prune and its catalogue check know files by the `.tmp-` in the name.
public enum TemporaryFileName {
  public static func beside(_ path: String) -> String {
    path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  }
}
