import Glibc
import Testing

@testable import BlueZ

/// A permission error on the live radio names exactly the capabilities this process lacks and the
/// `setcap` line for the binary that is running, or, when it has both, says something else
/// refused.
@Suite(.timeLimit(.minutes(1))) struct BluetoothCapabilitiesTests {
  @Test func theEffectiveSetIsReadFromProcStatus() {
    let status =
      "Name:\tbeacon-provision\nCapInh:\t0000000000000000\nCapPrm:\t0000000000003000\n"
      + "CapEff:\t0000000000002000\nCapBnd:\t000001ffffffffff\n"
    #expect(BluetoothCapabilities.effectiveSet(status: status) == 0x2000)
    #expect(BluetoothCapabilities.effectiveSet(status: "Name:\tx\n") == nil)
  }

  @Test func aProcessWithoutEitherIsToldBothAndTheSetcapLineForItsBinary() {
    let none = BluetoothCapabilities(netRaw: false, netAdmin: false, executable: "/usr/bin/beacon-provision")
    #expect(none.missing == ["CAP_NET_RAW", "CAP_NET_ADMIN"])
    #expect(none.hint.hasPrefix("this process lacks CAP_NET_RAW and CAP_NET_ADMIN;"))
    #expect(none.hint.contains("`sudo setcap cap_net_raw,cap_net_admin+ep /usr/bin/beacon-provision`"))
    #expect(none.hint.contains("or run it as root"))
  }

  @Test func aProcessWithOnlyOneIsToldTheOther() {
    let rawOnly = BluetoothCapabilities(netRaw: true, netAdmin: false, executable: "/opt/bp")
    #expect(rawOnly.hint.hasPrefix("this process lacks CAP_NET_ADMIN;"))
    #expect(!rawOnly.hint.contains("lacks CAP_NET_RAW"))
  }

  @Test func aProcessWithBothIsToldSomethingElseRefused() {
    let both = BluetoothCapabilities(netRaw: true, netAdmin: true, executable: "/usr/bin/beacon-provision")
    #expect(both.missing.isEmpty)
    #expect(both.hint.contains("yet the kernel refused") && both.hint.contains("seccomp"))
  }

  @Test func thisProcessIsReadAsItIs() {
    // The test runner: its own binary, and CAP_NET_RAW as the kernel reports it for this process.
    let current = BluetoothCapabilities.current()
    #expect(current.executable.hasPrefix("/"))
    let status = (try? String(decoding: readAll("/proc/self/status"), as: UTF8.self)) ?? ""
    let effective = BluetoothCapabilities.effectiveSet(status: status) ?? 0
    #expect(current.netRaw == (effective & (1 << 13) != 0))
  }

  @Test func aPermissionErrorCarriesTheHint() {
    let text = BlueZError(errno: EPERM, call: "bind(HCI_CHANNEL_CONTROL)", adapter: "hci0").description
    #expect(text == "permission denied on hci0 (bind(HCI_CHANNEL_CONTROL)): " + BluetoothCapabilities.current().hint)
  }

  private func readAll(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 65536)
    let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    return Array(bytes[0..<max(count, 0)])
  }
}
