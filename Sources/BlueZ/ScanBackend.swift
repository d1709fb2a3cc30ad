/// Which kernel interface a live scan uses (`--scan-backend`).
public enum ScanBackend: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// The management channel when it is usable on this adapter, else raw HCI.
  case auto
  /// Kernel LE discovery over the management channel; coexists with bluetoothd (MgmtScanner).
  case mgmt
  /// LE scan commands over a raw HCI socket; for adapters no other host scans on (HCIScanner).
  case hci

  public var description: String { rawValue }

  /// What the choice resolves to on an adapter, given whether the management channel answered there
  /// (`mgmtProbe`: nil = usable, else why not). `auto` prefers mgmt because it is safe while bluetoothd
  /// runs (docs/protocols/linux-ble.md §4 item 2); asking for `mgmt` where it is unusable throws the probe's error.
  public func resolve(mgmtProbe: (any Error)?) throws -> ScanBackend {
    switch self {
    case .auto: return mgmtProbe == nil ? ScanBackend.mgmt : ScanBackend.hci
    case .mgmt:
      if let mgmtProbe { throw mgmtProbe }
      return ScanBackend.mgmt
    case .hci: return ScanBackend.hci
    }
  }
}
