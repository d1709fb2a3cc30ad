/// The `dfu` section of a fleet-file KBeacon entry: its Secure DFU bootloader (docs/protocols/nordic-dfu.md §2) and the
/// faults it injects. Every key is optional; without the section a KBeacon has an SDK 15.3 bootloader for
/// nRF52 (hardware version 52, unsigned packages accepted) that any package for it can update:
///
/// ```json
/// "dfu": { "hardwareVersion": 52, "inactivityTimeoutMs": 120000, "buttonless": "sdk14",
///          "faults": { "dropLinkAtByte": 3000, "always": false, "corruptByteAt": 100 } }
/// ```
/// - `buttonless`: which SDK's buttonless service the application runs (§2.2): `sdk14` (default) accepts
///   Set Advertisement Name (`02 <len> <name>`) and its bootloader advertises that name; `sdk13` answers
///   `02` with "op code not supported" (`20 02 02`), so its bootloader advertises `DfuTarg`.
/// - `hardwareVersion`: NRF_DFU_HW_VERSION the bootloader checks init packets against (default 52).
/// - `inactivityTimeoutMs`: after this long without a connect or write the bootloader gives up and the old
///   application runs again (default 120000, the SDK's; 100…600000).
/// - `faults.dropLinkAtByte`: drop the link once this many firmware bytes have arrived (once per bootloader
///   session); with `always` every data write after that first drop drops the link too, so no retry gets
///   further; with `dropsAfterward` N (1…1000) only the next N data writes do, and then the link holds — a
///   run that gives up on the device leaves it in its bootloader with part of the image, for a later run to
///   finish.
/// - `faults.corruptByteAt`: flip one bit of the data write holding this firmware byte (once).
/// - `faults.dropLinkAtInitByte`: drop the link once this many init-packet bytes have arrived (once).
/// - `faults.dropLinkAtExecute`: the final Execute activates the image but the link drops before its
///   answer (once).
/// - `faults.silentAfterUpdateMs`: after an update the new application neither advertises nor accepts a link
///   for this long (1…60000), as a device does while its bootloader copies the new image into place and
///   starts it; a connect meanwhile waits for it up to its timeout, as on a real radio. [I] Only the process
///   whose bootloader ran the update keeps the silence: another sharing the fleet's state directory finds the
///   application at once.
public struct DFUSection: Sendable, Hashable, Codable {
  public var hardwareVersion: UInt32?
  public var inactivityTimeoutMs: Int?
  public var faults: Faults?
  public var buttonless: Buttonless?

  /// The buttonless DFU service generations the simulator plays (docs/protocols/nordic-dfu.md §2.2).
  public enum Buttonless: String, Sendable, Hashable, Codable, CaseIterable {
    /// SDK 14 and later: `02` Set Advertisement Name is supported.
    case sdk14
    /// SDK 13: only `01`; `02` is answered "op code not supported".
    case sdk13
  }

  public init(
    hardwareVersion: UInt32? = nil, inactivityTimeoutMs: Int? = nil, faults: Faults? = nil,
    buttonless: Buttonless? = nil
  ) {
    self.hardwareVersion = hardwareVersion
    self.inactivityTimeoutMs = inactivityTimeoutMs
    self.faults = faults
    self.buttonless = buttonless
  }

  enum CodingKeys: String, CodingKey, CaseIterable { case hardwareVersion, inactivityTimeoutMs, faults, buttonless }

  /// Whether the application accepts Set Advertisement Name (`buttonless` is not `sdk13`).
  public var acceptsBootloaderName: Bool { buttonless != .sdk13 }

  public init(from decoder: any Decoder) throws {
    try decoder.rejectUnknownKeys(CodingKeys.self)
    let c = try decoder.container(keyedBy: CodingKeys.self)
    hardwareVersion = try c.decodeIfPresent(UInt32.self, forKey: .hardwareVersion)
    inactivityTimeoutMs = try c.decodeIfPresent(Int.self, forKey: .inactivityTimeoutMs)
    faults = try c.decodeIfPresent(Faults.self, forKey: .faults)
    if let text = try c.decodeIfPresent(String.self, forKey: .buttonless) {
      guard let value = Buttonless(rawValue: text) else {
        throw invalidValue(
          decoder, CodingKeys.buttonless,
          "'\(text)' is not a buttonless generation (allowed: \(Buttonless.allCases.map(\.rawValue).joined(separator: ", ")))"
        )
      }
      buttonless = value
    }
    if let ms = inactivityTimeoutMs, !(100...600_000).contains(ms) {
      throw invalidValue(decoder, CodingKeys.inactivityTimeoutMs, "\(ms) ms is outside 100…600000")
    }
  }

  /// Faults of the simulated bootloader (see the section's description).
  public struct Faults: Sendable, Hashable, Codable {
    public var dropLinkAtByte: Int?
    public var always: Bool?
    public var dropsAfterward: Int?
    public var corruptByteAt: Int?
    public var dropLinkAtInitByte: Int?
    public var dropLinkAtExecute: Bool?
    public var silentAfterUpdateMs: Int?

    public init(
      dropLinkAtByte: Int? = nil, always: Bool? = nil, corruptByteAt: Int? = nil, dropLinkAtInitByte: Int? = nil,
      dropLinkAtExecute: Bool? = nil, dropsAfterward: Int? = nil, silentAfterUpdateMs: Int? = nil
    ) {
      self.dropLinkAtByte = dropLinkAtByte
      self.always = always
      self.dropsAfterward = dropsAfterward
      self.corruptByteAt = corruptByteAt
      self.dropLinkAtInitByte = dropLinkAtInitByte
      self.dropLinkAtExecute = dropLinkAtExecute
      self.silentAfterUpdateMs = silentAfterUpdateMs
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
      case dropLinkAtByte, always, dropsAfterward, corruptByteAt, dropLinkAtInitByte, dropLinkAtExecute
      case silentAfterUpdateMs
    }

    public init(from decoder: any Decoder) throws {
      try decoder.rejectUnknownKeys(CodingKeys.self)
      let c = try decoder.container(keyedBy: CodingKeys.self)
      dropLinkAtByte = try c.decodeIfPresent(Int.self, forKey: .dropLinkAtByte)
      always = try c.decodeIfPresent(Bool.self, forKey: .always)
      dropsAfterward = try c.decodeIfPresent(Int.self, forKey: .dropsAfterward)
      corruptByteAt = try c.decodeIfPresent(Int.self, forKey: .corruptByteAt)
      dropLinkAtInitByte = try c.decodeIfPresent(Int.self, forKey: .dropLinkAtInitByte)
      dropLinkAtExecute = try c.decodeIfPresent(Bool.self, forKey: .dropLinkAtExecute)
      silentAfterUpdateMs = try c.decodeIfPresent(Int.self, forKey: .silentAfterUpdateMs)
      if let ms = silentAfterUpdateMs, !(1...60_000).contains(ms) {
        throw invalidValue(decoder, CodingKeys.silentAfterUpdateMs, "\(ms) ms is outside 1…60000")
      }
      let offsets = [
        (CodingKeys.dropLinkAtByte, dropLinkAtByte), (.corruptByteAt, corruptByteAt),
        (.dropLinkAtInitByte, dropLinkAtInitByte),
      ]
      for (key, n) in offsets {
        if let n, n < 0 { throw invalidValue(decoder, key, "\(n) is negative") }
      }
      if always == true, dropLinkAtByte == nil {
        throw invalidValue(decoder, CodingKeys.always, "always needs dropLinkAtByte")
      }
      if let n = dropsAfterward {
        guard (1...1000).contains(n) else {
          throw invalidValue(decoder, CodingKeys.dropsAfterward, "\(n) is outside 1…1000")
        }
        guard dropLinkAtByte != nil else {
          throw invalidValue(decoder, CodingKeys.dropsAfterward, "dropsAfterward needs dropLinkAtByte")
        }
        if always == true {
          throw invalidValue(decoder, CodingKeys.dropsAfterward, "give always or dropsAfterward, not both")
        }
      }
    }
  }

  /// The bootloader this section describes, for a device whose application is `fw_version`
  /// `applicationVersion` (1 when its `ver` has no such number).
  func configuration(applicationVersion: UInt32?) -> DFUTargetConfiguration {
    var configuration = DFUTargetConfiguration()
    if let hardwareVersion { configuration.hardwareVersion = hardwareVersion }
    if let inactivityTimeoutMs { configuration.inactivityTimeout = .milliseconds(inactivityTimeoutMs) }
    configuration.applicationVersion = applicationVersion ?? 1
    return configuration
  }

  var targetFaults: DFUTargetFaults {
    DFUTargetFaults(
      dropLinkAtByte: faults?.dropLinkAtByte, corruptByteAt: faults?.corruptByteAt,
      dropLinkAtInitByte: faults?.dropLinkAtInitByte, dropLinkAtExecute: faults?.dropLinkAtExecute ?? false)
  }
}
