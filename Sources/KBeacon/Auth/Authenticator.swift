import BeaconCore

/// The app side of authentication (docs/protocols/kbeacon.md §5) as a pure state machine. Randomness and the
/// clock are inputs: the caller supplies R1 and the UTC to set (nil to leave the clock alone).
public struct AppAuthenticator: Sendable {
  public enum Action: Equatable, Sendable {
    /// Write this frame to FEA1 and wait.
    case send([UInt8])
    /// Authenticated; the device reported this ATT MTU (app budget becomes MTU − 6 bytes, §4.2).
    case authenticated(deviceMTU: Int)
    /// Authentication failed: close the link (`ConnAuthFail`) and never retry a wrong password automatically.
    case fail(KBeaconAuthenticationError)
  }

  private enum State { case idle, awaitingChallenge, awaitingResult, finished }

  public let address: BluetoothAddress
  private let password: KBeaconPassword
  private let random: [UInt8]
  private let utc: UInt32?
  private var state = State.idle

  /// - Parameters:
  ///   - address: the MAC the device uses in its digest (the address BlueZ reports, §5).
  ///   - random: R1, 4 random bytes.
  ///   - utc: Unix seconds to set the beacon's clock (v2 default `syncUtcTime`), or nil.
  public init(address: BluetoothAddress, password: KBeaconPassword, random: [UInt8], utc: UInt32?) {
    precondition(random.count == 4, "R1 has 4 bytes")
    self.address = address
    self.password = password
    self.random = random
    self.utc = utc
  }

  /// Phase 1: `13 01 R1 [UTC]`.
  public mutating func start() -> [UInt8] {
    state = .awaitingChallenge
    return AppAuthFrame.phase1(random: random, utc: utc).bytes
  }

  public mutating func receive(_ bytes: [UInt8]) -> Action {
    let frame: DeviceAuthFrame
    do {
      frame = try DeviceAuthFrame(bytes: bytes)
    } catch {
      state = .finished
      return .fail(.malformed(error.description))
    }
    switch (state, frame) {
    case (.awaitingChallenge, .challenge(let r2, let d1)):
      let isShort = d1.count == 8
      let expected =
        isShort
        ? AuthDigest.short(address: address, random: random, password: password.utf8)
        : AuthDigest.full(address: address, random: random, password: password.utf8)
      guard AuthDigest.equal(expected, d1) else {
        state = .finished
        return .fail(.wrongPassword)
      }
      state = .awaitingResult
      let d2 =
        isShort
        ? AuthDigest.short(address: address, random: r2, password: password.utf8)
        : AuthDigest.full(address: address, random: r2, password: password.utf8)
      return .send(AppAuthFrame.response(digest: d2).bytes)
    case (.awaitingChallenge, .failure), (.awaitingResult, .failure):
      state = .finished
      return .fail(.wrongPassword)
    case (.awaitingResult, .success(let mtu)):
      state = .finished
      return .authenticated(deviceMTU: Int(mtu))
    default:
      state = .finished
      return .fail(.malformed("unexpected \(frame) in state \(state)"))
    }
  }
}

/// The device side of authentication (§5), used by the simulated KBeacon. It answers phase 1 with a
/// challenge proving it knows the password, then checks the app's response.
public struct DeviceAuthenticator: Sendable {
  public enum Action: Equatable, Sendable {
    case send([UInt8])
    /// Authenticated; `clock` is the UTC the app sent in phase 1, if any. The success frame is in `reply`.
    case authenticated(reply: [UInt8], clock: UInt32?)
    /// Wrong password or malformed exchange; send `reply` (`13 F1`) and drop the link.
    case reject(reply: [UInt8])
  }

  private let address: BluetoothAddress
  private let password: [UInt8]
  private let random: [UInt8]
  private let useShortForm: Bool
  private let mtu: UInt8
  private var clock: UInt32?
  private var sentChallenge = false

  /// - Parameters:
  ///   - random: R2, 4 bytes.
  ///   - useShortForm: send the 8-byte challenge (0x0B). When the device chooses it is undocumented; the
  ///     spec guesses "when the link MTU is 23" (a full challenge is 22 bytes) [I].
  ///   - mtu: the ATT MTU reported on success.
  public init(address: BluetoothAddress, password: KBeaconPassword, random: [UInt8], useShortForm: Bool, mtu: UInt8) {
    self.address = address
    self.password = password.utf8
    self.random = random
    self.useShortForm = useShortForm
    self.mtu = mtu
  }

  public mutating func receive(_ bytes: [UInt8]) -> Action {
    let reject = Action.reject(reply: DeviceAuthFrame.failure.bytes)
    guard let frame = try? AppAuthFrame(bytes: bytes) else { return reject }
    switch (sentChallenge, frame) {
    case (false, .phase1(let r1, let utc)):
      sentChallenge = true
      clock = utc
      let d1 =
        useShortForm
        ? AuthDigest.short(address: address, random: r1, password: password)
        : AuthDigest.full(address: address, random: r1, password: password)
      return .send(DeviceAuthFrame.challenge(random: random, digest: d1).bytes)
    case (true, .response(let d2)):
      let expected =
        useShortForm
        ? AuthDigest.short(address: address, random: random, password: password)
        : AuthDigest.full(address: address, random: random, password: password)
      guard AuthDigest.equal(expected, d2) else { return reject }
      return .authenticated(reply: DeviceAuthFrame.success(mtu: mtu).bytes, clock: clock)
    default:
      return reject
    }
  }
}
