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
