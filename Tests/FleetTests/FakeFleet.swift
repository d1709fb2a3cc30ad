import BeaconCore
import KBeacon
import Profiles
import Synchronization

@testable import Fleet

/// Test double for the orchestration tests only: an in-memory device that stores a configuration and a
/// password and can be told to fail. The protocol-level behaviour (frames, auth, cause codes) is tested
/// against the simulated KBeacon elsewhere; here the subject is the campaign's bookkeeping.
actor FakeDevice {
  var config: DeviceConfigView
  var password: String
  var writes: [DeviceConfigView] = []
  var opens = 0
  /// Drop the link on this many upcoming writes (transient).
  var dropWrites = 0
  /// Apply this many upcoming writes, then drop the link before they are acknowledged.
  var dropAfterWrites = 0
  /// Report one key wrong on read-back after a write.
  var corruptAfterWrite: String? = nil
  /// Drop the link on every read after the first write (the verification read).
  var dropReadsAfterWrite = false
  /// Sessions opened and not yet closed, by number.
  var openSessions: Set<Int> = []

  init(config: DeviceConfigView, password: String = "0000000000000000") {
    self.config = config
    self.password = password
  }

  /// Returns the new session's number.
  func open(_ password: String) throws -> Int {
    opens += 1
    guard password == self.password else { throw FakeFailure.wrongPassword }
    openSessions.insert(opens)
    return opens
  }

  func close(_ session: Int) { openSessions.remove(session) }

  func read() throws -> DeviceConfigView {
    if dropReadsAfterWrite, !writes.isEmpty { throw LinkError(.disconnected, detail: "link dropped mid-read") }
    return config
  }

  func write(_ patch: DeviceConfigView) throws {
    if dropWrites > 0 {
      dropWrites -= 1
      throw LinkError(.disconnected, detail: "link dropped mid-write")
    }
    writes.append(patch)
    for (k, v) in patch.common where k != "pwd" { config.common[k] = v }
    if case .text(let p)? = patch.common["pwd"] { password = p }
    for (i, s) in patch.slots { config.slots[i, default: [:]].merge(s) { $1 } }
    for (i, t) in patch.triggers { config.triggers[i, default: [:]].merge(t) { $1 } }
    for (i, s) in patch.sensors { config.sensors[i, default: [:]].merge(s) { $1 } }
    if let key = corruptAfterWrite { config.slots[0]?[key] = .integer(-1) }
    if dropAfterWrites > 0 {
      dropAfterWrites -= 1
      throw LinkError(.disconnected, detail: "link dropped before the write's ack")
    }
  }
}

enum FakeFailure: Error, ClassifiedFailure, CustomStringConvertible {
  case wrongPassword
  var failureKind: FailureKind { .wrongPassword }
  var description: String { "authentication failed: wrong password" }
}

/// An adapter's link cap, as a controller enforces it: a connect beyond `limit` open links is refused with
/// `LinkError(.tooManyLinks)`. Closing a session frees its link at once, or `teardown` later, as the kernel
/// (and the simulator's `LinkCapacity`) frees a link's slot some time after its socket closed. `limit` can
/// change midway, as when another program takes or gives back links.
actor FakeLinkSlots {
  private(set) var limit: Int
  let teardown: Duration?
  private(set) var open = 0
  private(set) var refusals = 0
  private(set) var mostOpen = 0

  init(limit: Int, teardown: Duration? = nil) {
    self.limit = limit
    self.teardown = teardown
  }

  func acquire(_ peer: BluetoothAddress) throws {
    guard open < limit else {
      refusals += 1
      throw LinkError(.tooManyLinks, peer: peer, detail: "\(limit) link(s) already open on this adapter")
    }
    open += 1
    mostOpen = max(mostOpen, open)
  }

  func release() {
    guard let teardown else {
      open -= 1
      return
    }
    Task {
      try? await Task.sleep(for: teardown)
      self.freeSlot()
    }
  }

  private func freeSlot() { open -= 1 }

  func setLimit(_ value: Int) { limit = value }

  /// Starts counting `mostOpen` afresh.
  func resetMostOpen() { mostOpen = open }

  /// Returns once `count` links are open at one time (polled every millisecond), or after `bound`: a visit
  /// that holds its link here lets later connects overlap it, where the fake's visits would otherwise end at
  /// once and seldom leave several links open together.
  func waitUntilOpen(_ count: Int, atMost bound: Duration) async {
    let deadline = ContinuousClock.now + bound
    while mostOpen < count, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(1)) }
  }
}

/// A condition a test raises once and fake devices wait for (polled every millisecond, at most 5 s).
final class TestFlag: Sendable {
  private let raised = Mutex(false)
  func raise() { raised.withLock { $0 = true } }
  var isRaised: Bool { raised.withLock { $0 } }
  func wait() async {
    for _ in 0..<5000 where !raised.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(1)) }
  }
}

struct FakeSession: ConfigurationSession {
  let device: FakeDevice
  let number: Int
  var slots: FakeLinkSlots? = nil
  func readConfiguration(_ sections: ConfigSections) async throws -> DeviceConfigView { try await device.read() }
  func write(_ patch: DeviceConfigView) async throws { try await device.write(patch) }
  func close() async {
    guard await device.openSessions.contains(number) else { return }
    await device.close(number)
    await slots?.release()
  }
}

struct FakeOpener: SessionOpener {
  let devices: [BluetoothAddress: FakeDevice]
  var slots: FakeLinkSlots? = nil
  /// Awaited once the adapter gave a connect its link, before the session opens (nil: at once).
  var connected: (@Sendable () async -> Void)? = nil
  func open(_ target: Target, password: Secret) async throws -> any ConfigurationSession {
    guard let d = devices[target.address] else { throw LinkError(.unknownDevice, peer: target.address) }
    try await slots?.acquire(target.address)
    await connected?()
    do {
      return FakeSession(device: d, number: try await d.open(password.value), slots: slots)
    } catch {
      await slots?.release()
      throw error
    }
  }
}
