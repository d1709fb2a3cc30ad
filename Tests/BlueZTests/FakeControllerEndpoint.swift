import Foundation
import Glibc
import Synchronization

/// The far end of a `socketpair(AF_UNIX, SOCK_SEQPACKET)` standing in for a controller (raw HCI) or the
/// kernel (mgmt): a dedicated thread reads each packet the code under test writes, records it, and writes
/// back whatever `respond` returns. `inject` writes unsolicited packets (events). No real timing involved.
final class FakeControllerEndpoint: Sendable {
  /// The descriptor to hand to `HCISocket(adopting:)` / `MgmtSocket(adopting:)`.
  let clientDescriptor: Int32
  private let fakeDescriptor: Int32
  private let received = Mutex<[[UInt8]]>([])
  private let waiters = Mutex<[(count: Int, continuation: CheckedContinuation<Void, Never>)]>([])

  init(respond: @escaping @Sendable (_ packet: [UInt8], _ endpoint: FakeControllerEndpoint) -> [[UInt8]]) {
    var fds: [Int32] = [0, 0]
    precondition(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
    clientDescriptor = fds[0]
    fakeDescriptor = fds[1]
    let fd = fakeDescriptor
    let thread = Thread { [self] in
      var buffer = [UInt8](repeating: 0, count: 70_000)
      while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        let packet = Array(buffer[0..<n])
        record(packet)
        for reply in respond(packet, self) { inject(reply) }
      }
    }
    thread.start()
  }

  deinit { close(fakeDescriptor) }

  /// Every packet received so far, in order.
  var packets: [[UInt8]] { received.withLock { $0 } }

  func inject(_ packet: [UInt8]) {
    _ = packet.withUnsafeBytes { write(fakeDescriptor, $0.baseAddress, $0.count) }
  }

  /// Returns once at least `count` packets have arrived.
  func waitForPackets(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let ready = received.withLock { $0.count >= count }
      if ready {
        continuation.resume()
      } else {
        waiters.withLock { $0.append((count, continuation)) }
        // Re-check: a packet may have arrived between the two locks.
        if received.withLock({ $0.count >= count }) { releaseWaiters() }
      }
    }
  }

  private func record(_ packet: [UInt8]) {
    received.withLock { $0.append(packet) }
    releaseWaiters()
  }

  private func releaseWaiters() {
    let count = received.withLock { $0.count }
    let ready = waiters.withLock { list -> [CheckedContinuation<Void, Never>] in
      let done = list.filter { $0.count <= count }.map(\.continuation)
      list.removeAll { $0.count <= count }
      return done
    }
    for continuation in ready { continuation.resume() }
  }
}

/// HCI helpers for fake controllers.
enum FakeHCI {
  /// The opcode of an H4 command packet (01 | opcode LE | length | parameters).
  static func opcode(_ packet: [UInt8]) -> UInt16 { UInt16(packet[1]) | UInt16(packet[2]) << 8 }

  /// 04 0E | length | 01 allowed | opcode | return parameters.
  static func commandComplete(_ opcode: UInt16, _ returnParameters: [UInt8]) -> [UInt8] {
    [0x04, 0x0E, UInt8(3 + returnParameters.count), 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + returnParameters
  }
}

/// mgmt helpers for fake kernels.
enum FakeMgmt {
  static func opcode(_ packet: [UInt8]) -> UInt16 { UInt16(packet[0]) | UInt16(packet[1]) << 8 }
  static func index(_ packet: [UInt8]) -> UInt16 { UInt16(packet[2]) | UInt16(packet[3]) << 8 }

  static func event(_ code: UInt16, index: UInt16, _ parameters: [UInt8]) -> [UInt8] {
    [UInt8(code & 0xFF), UInt8(code >> 8), UInt8(index & 0xFF), UInt8(index >> 8)]
      + [UInt8(parameters.count & 0xFF), UInt8(parameters.count >> 8)] + parameters
  }

  /// Command Complete (0x0001): opcode, status, return parameters.
  static func complete(_ opcode: UInt16, index: UInt16, status: UInt8 = 0, _ returnParameters: [UInt8] = []) -> [UInt8]
  {
    event(0x0001, index: index, [UInt8(opcode & 0xFF), UInt8(opcode >> 8), status] + returnParameters)
  }

  /// Command Status (0x0002): opcode, status.
  static func status(_ opcode: UInt16, index: UInt16, status: UInt8) -> [UInt8] {
    event(0x0002, index: index, [UInt8(opcode & 0xFF), UInt8(opcode >> 8), status])
  }
}
