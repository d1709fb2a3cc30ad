import BeaconCore

/// One kind of text-stream ("virtual serial") device: the service that identifies it, the characteristic
/// the host writes commands to (Rx) and the one it subscribes to for answers (Tx), the command terminator,
/// the write fragment size and the timeouts (docs/protocols/text-stream.md, "Known profiles"). The known ones are in
/// `TextStreamProfile.known`.
///
/// Rx and Tx are named from the device's side, as the Tertium libraries name them: the host writes Rx and
/// listens on Tx.
public struct TextStreamProfile: Sendable, Hashable, Identifiable, CustomStringConvertible {
  /// An extra characteristic a profile declares besides Rx and Tx.
  public struct Extra: Sendable, Hashable {
    public enum Role: String, Sendable, Hashable {
      /// ACKme/Zentri: selects the module's mode (stream or command). Found and reported; the engine never
      /// writes it, since the libraries only name it [I].
      case setMode = "set-mode"
      /// Zhaga: events notified outside command answers. Found and reported; not subscribed to [I].
      case event
    }

    public var role: Role
    public var uuid: BluetoothUUID

    public init(role: Role, uuid: BluetoothUUID) {
      self.role = role
      self.uuid = uuid
    }
  }

  /// A short stable name for `--profile` and `--json`: `tertium-txrx`, `nordic-uart`, …
  public var id: String
  /// The name the spec gives.
  public var name: String
  public var service: BluetoothUUID
  /// The characteristic the host writes commands to.
  public var rx: BluetoothUUID
  /// The characteristic the host subscribes to for answers.
  public var tx: BluetoothUUID
  public var extras: [Extra]
  public var terminator: TextStreamTerminator
  /// Bytes per written fragment; nil means ATT_MTU − 3. Never more than ATT_MTU − 3 in any case
  /// (`fragmentSize(attMTU:)`).
  public var packetSize: Int?
  public var timeouts: TextStreamTimeouts

  public init(
    id: String, name: String, service: BluetoothUUID, rx: BluetoothUUID, tx: BluetoothUUID, extras: [Extra] = [],
    terminator: TextStreamTerminator, packetSize: Int?, timeouts: TextStreamTimeouts = .library
  ) {
    self.id = id
    self.name = name
    self.service = service
    self.rx = rx
    self.tx = tx
    self.extras = extras
    self.terminator = terminator
    self.packetSize = packetSize
    self.timeouts = timeouts
  }

  /// The bytes per write on a link with this ATT MTU: the profile's packet size, capped at ATT_MTU − 3 (a
  /// Write Request's value, Core v5.4 Vol 3 Part F §3.4.5.1), at least 1.
  public func fragmentSize(attMTU: Int) -> Int {
    let linkLimit = max(1, attMTU - 3)
    guard let packetSize else { return linkLimit }
    return max(1, min(packetSize, linkLimit))
  }

  /// The UUID of an extra characteristic, if the profile has one with this role.
  public func extra(_ role: Extra.Role) -> BluetoothUUID? { extras.first { $0.role == role }?.uuid }

  public var description: String { "\(name) (\(id))" }
}
