import BeaconCore

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
