import Glibc

/// The two capabilities the live radio needs of this process, which of them it has, and the one line that
/// tells an operator what is missing and how to grant it (`scan` as a non-root user).
/// CAP_NET_RAW opens raw HCI sockets (LE scan, connection setup) and the L2CAP ATT channel; CAP_NET_ADMIN
/// binds the kernel's Bluetooth management channel (mgmt scan backend) and changes adapter settings.
/// The .deb's postinst grants both to /usr/bin/beacon-provision with `setcap …+ep`; the systemd units grant
/// them with AmbientCapabilities (docs/guide/install.md).
public struct BluetoothCapabilities: Sendable, Equatable {
  public var netRaw: Bool
  public var netAdmin: Bool
  /// The running binary, for the `setcap` line (`/proc/self/exe`).
  public var executable: String

  public init(netRaw: Bool, netAdmin: Bool, executable: String) {
    self.netRaw = netRaw
    self.netAdmin = netAdmin
    self.executable = executable
  }

  /// CAP_NET_ADMIN and CAP_NET_RAW's bit numbers (linux/capability.h).
  static let netAdminBit = 12
  static let netRawBit = 13

  /// This process now: its effective set from `/proc/self/status`. [I] When that cannot be read, both
  /// are reported missing, so the hint still names them.
  public static func current() -> BluetoothCapabilities {
    let effective = readFile("/proc/self/status").flatMap(effectiveSet(status:)) ?? 0
    return BluetoothCapabilities(
      netRaw: effective & (1 << netRawBit) != 0, netAdmin: effective & (1 << netAdminBit) != 0,
      executable: executablePath() ?? "$(command -v beacon-provision)")
  }

  /// The `CapEff:` line of a /proc/PID/status text, as a bit set (proc(5)).
  static func effectiveSet(status: String) -> UInt64? {
    for line in status.split(separator: "\n") where line.hasPrefix("CapEff:") {
      return UInt64(line.dropFirst("CapEff:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 16)
    }
    return nil
  }

  /// The capabilities this process lacks, by their names in capabilities(7).
  public var missing: [String] {
    (netRaw ? [] : ["CAP_NET_RAW"]) + (netAdmin ? [] : ["CAP_NET_ADMIN"])
  }

  /// What is missing and how to grant it, or, when nothing is, what else refuses.
  public var hint: String {
    let missing = missing
    guard !missing.isEmpty else {
      return "this process has CAP_NET_RAW and CAP_NET_ADMIN, yet the kernel refused: a container or a security "
        + "policy (seccomp, AppArmor, a user namespace) is blocking Bluetooth sockets"
    }
    return "this process lacks \(missing.joined(separator: " and ")); grant them to the binary with "
      + "`sudo setcap cap_net_raw,cap_net_admin+ep \(executable)` (the .deb's postinst does this; a copy "
      + "elsewhere or a file system without extended attributes loses them), or run it as root"
  }

  private static func readFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func executablePath() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
