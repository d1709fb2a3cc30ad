import BeaconCore
import BlueZ
import Synchronization

@testable import Simulator

/// Shared pieces for the client-against-simulated-server tests.
enum GATTFixtures {
  static let device = BluetoothAddress("C4:00:00:00:00:01")!

  /// Opens a link to `server` and wraps the client end in a `GATTClient`. The transaction timeout is the ATT
  /// one (30 s, Core v5.4 Vol 3 Part F §3.3.3) unless a test of the timeout gives its own: a bound on a hang, not
  /// a measure — 5 s ran out for a read under AddressSanitizer on a loaded machine.
  static func connect(
    _ server: GATTServer, model: LinkModel = .instant, faults: LinkFaults = .none, timeout: Duration = .seconds(30)
  ) async throws -> (GATTClient, SimulatedLink) {
    let (bearer, link) = try await SimulatedLink.open(to: server, device: device, model: model, faults: faults)
    return (GATTClient(bearer: bearer, transactionTimeout: timeout), link)
  }

  /// A 128-bit UUID numbered `n`.
  static func vendorUUID(_ n: Int) -> BluetoothUUID {
    BluetoothUUID(String(format: "6E40%04X-B5A3-F393-E0A9-E50E24DCCA9E", n))!
  }

  /// Ten services mixing 16- and 128-bit UUIDs, notify/indicate characteristics (with CCCDs) and user
  /// descriptions, so discovery crosses every response-packing boundary at MTU 23.
  static func tenServices() -> [SimulatedService] {
    (0..<10).map { s in
      let serviceUUID = s.isMultiple(of: 2) ? BluetoothUUID(UInt16(0x1800 + s)) : vendorUUID(s)
      let characteristics = (0..<(s % 4 + 1)).map { c -> SimulatedCharacteristic in
        let uuid = c.isMultiple(of: 2) ? BluetoothUUID(UInt16(0x2A00 + s * 10 + c)) : vendorUUID(100 + s * 10 + c)
        let properties: GATTCharacteristicProperties = [
          [.read], [.read, .notify], [.write, .indicate], [.read, .write, .writeWithoutResponse],
        ][c]
        let descriptors = c == 1 ? [SimulatedDescriptor.userDescription("c\(s).\(c)")] : []
        return SimulatedCharacteristic(
          uuid: uuid, properties: properties, value: [UInt8(s), UInt8(c)], descriptors: descriptors)
      }
      return SimulatedService(uuid: serviceUUID, characteristics: characteristics)
    }
  }
}

/// Collects values from `@Sendable` handlers; `wait(forCount:)` returns once that many have arrived.
final class Recorder<T: Sendable>: Sendable {
  private let state = Mutex<(items: [T], waiters: [(count: Int, done: CheckedContinuation<Void, Never>)])>(([], []))

  func append(_ item: T) {
    let due = state.withLock { s -> [CheckedContinuation<Void, Never>] in
      s.items.append(item)
      let count = s.items.count
      defer { s.waiters.removeAll { $0.count <= count } }
      return s.waiters.filter { $0.count <= count }.map(\.done)
    }
    for done in due { done.resume() }
  }

  var all: [T] { state.withLock { $0.items } }

  /// Returns once at least `count` values were recorded (signalled by `append`).
  func wait(forCount count: Int) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      let reached = state.withLock { s -> Bool in
        if s.items.count >= count { return true }
        s.waiters.append((count, done))
        return false
      }
      if reached { done.resume() }
    }
  }
}
