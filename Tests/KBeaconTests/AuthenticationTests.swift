import BeaconCore
import Testing

@testable import KBeacon

/// docs/protocols/kbeacon.md §5: the MD5 challenge–response, long and short forms, both sides.
@Suite(.timeLimit(.minutes(1))) struct AuthenticationTests {
  let mac = BluetoothAddress("BC:57:29:01:02:03")!

  @Test func md5IsRFC1321() {
    // RFC 1321 appendix A.5: MD5("abc")
    #expect(AuthDigest.md5(utf8("abc")) == hex("900150983cd24fb0d6963f7d28e17f72"))
  }

  /// Expected digests computed outside the product (Python `hashlib.md5`) over the §5 input
  /// `MAC_LE ‖ A9 B1 ‖ R ‖ PWD`; the short form is the first 8 bytes XOR the last 8.
  @Test func specTestVector() {
    let password = utf8("0000000000000000")
    // D1 = MD5(03 02 01 29 57 BC ‖ A9 B1 ‖ 11 22 33 44 ‖ 30×16)
    //    = hashlib.md5(bytes.fromhex("030201 2957BC A9B1 11223344") + b"0"*16)
    #expect(
      AuthDigest.full(address: mac, random: hex("11223344"), password: password)
        == hex("00f74bd302ffdfeefbf5ef9bbacc57a1"))
    #expect(AuthDigest.short(address: mac, random: hex("11223344"), password: password) == hex("fb02a448b833884f"))
    #expect(
      AuthDigest.full(address: mac, random: hex("A1B2C3D4"), password: password)
        == hex("06aca5b77126e54b2d3aad711e718ffb"))
    #expect(AuthDigest.short(address: mac, random: hex("A1B2C3D4"), password: password) == hex("2b9608c66f576ab0"))
  }

  @Test func digestFollowsTheFormulaForAnotherAddressAndPassword() {
    // Input assembled by hand from the formula: MAC DD:34:02:06:D0:6C reversed, factor, R, "secret12":
    // 6C D0 06 02 34 DD ‖ A9 B1 ‖ 01 02 03 04 ‖ "secret12". Expected digest computed outside the product:
    // hashlib.md5(bytes.fromhex("6CD006 0234DD A9B1 01020304") + b"secret12").hexdigest().
    let address = BluetoothAddress("DD:34:02:06:D0:6C")!
    let digest = AuthDigest.full(address: address, random: hex("01020304"), password: utf8("secret12"))
    #expect(digest == hex("6967f32ff04bcf4e9f2abe056f07134a"))
    // Short form: first 8 bytes XOR last 8 bytes.
    #expect(
      AuthDigest.short(address: address, random: hex("01020304"), password: utf8("secret12")) == hex("f64d4d2a9f4cdc04")
    )
  }

  @Test func appSideFullExchangeWithClockSet() throws {
    var app = AppAuthenticator(address: mac, password: .factoryDefault, random: hex("11223344"), utc: 0x6500_0000)
    // 13 01 | R1 11223344 | UTC 65000000 (sets the beacon clock)
    #expect(app.start() == hex("13 01 11223344 65000000"))
    // 13 01 | R2 A1B2C3D4 | D1 (full): the device proves it knows the password
    let challenge = hex("13 01 A1B2C3D4 00f74bd302ffdfeefbf5ef9bbacc57a1")
    // 13 02 | D2 over R2
    #expect(app.receive(challenge) == .send(hex("13 02 06aca5b77126e54b2d3aad711e718ffb")))
    // 13 02 F7: success, device MTU 247
    #expect(app.receive(hex("13 02 F7")) == .authenticated(deviceMTU: 247))
  }

  @Test func appSideShortForm() {
    var app = AppAuthenticator(address: mac, password: .factoryDefault, random: hex("11223344"), utc: nil)
    #expect(app.start() == hex("13 01 11223344"))
    // 13 0B | R2 | D1s (8 bytes) → answered with 13 0C | D2s
    #expect(app.receive(hex("13 0B A1B2C3D4 fb02a448b833884f")) == .send(hex("13 0C 2b9608c66f576ab0")))
    #expect(app.receive(hex("13 02 17")) == .authenticated(deviceMTU: 23))
  }

  @Test func wrongPasswordIsDetectedFromTheChallengeOrTheDevicesFailure() throws {
    var app = AppAuthenticator(
      address: mac, password: try KBeaconPassword("wrongpass1"), random: hex("11223344"), utc: nil)
    _ = app.start()
    #expect(app.receive(hex("13 01 A1B2C3D4 00f74bd302ffdfeefbf5ef9bbacc57a1")) == .fail(.wrongPassword))
    var other = AppAuthenticator(address: mac, password: .factoryDefault, random: hex("11223344"), utc: nil)
    _ = other.start()
    // 13 F1 = AUTH_RETURN_FAIL
    #expect(other.receive(hex("13 F1")) == .fail(.wrongPassword))
  }

  @Test func passwordLengthIsCheckedAndNeverPrinted() throws {
    #expect(throws: KBeaconAuthenticationError.invalidPasswordLength(7)) { try KBeaconPassword("1234567") }
    #expect(throws: KBeaconAuthenticationError.invalidPasswordLength(17)) {
      try KBeaconPassword(String(repeating: "1", count: 17))
    }
    let password = try KBeaconPassword("hunter2hunter2")
    #expect(!"\(password)".contains("hunter2"))
  }

  @Test func deviceSideAcceptsTheRightPasswordAndRejectsAWrongOne() throws {
    for short in [false, true] {
      var device = DeviceAuthenticator(
        address: mac, password: .factoryDefault, random: hex("A1B2C3D4"), useShortForm: short, mtu: 247)
      var app = AppAuthenticator(address: mac, password: .factoryDefault, random: hex("11223344"), utc: 1_700_000_000)
      guard case .send(let challenge) = device.receive(app.start()), case .send(let response) = app.receive(challenge),
        case .authenticated(let reply, let clock) = device.receive(response)
      else {
        Issue.record("exchange did not complete (short: \(short))")
        continue
      }
      #expect(clock == 1_700_000_000)
      #expect(app.receive(reply) == .authenticated(deviceMTU: 247))
    }
    // An app that sends a wrong D2 (here: a digest of zeros) gets 13 F1.
    var device = DeviceAuthenticator(
      address: mac, password: .factoryDefault, random: hex("A1B2C3D4"), useShortForm: false, mtu: 247)
    _ = device.receive(hex("13 01 11223344"))
    #expect(device.receive(hex("13 02") + [UInt8](repeating: 0, count: 16)) == .reject(reply: hex("13 F1")))
  }
}
