/// The timing constants of docs/protocols/kbeacon.md §3 and §12, in one place so sessions and tests share them.
public enum KBeaconTimeouts {
  /// Read (`getPara`) action: 15 s (`MAX_READ_CFG_TIMEOUT`).
  public static let read: Duration = .seconds(15)
  /// Write (`cfg`) action: 15 s (`MAX_WRITE_CFG_TIMEOUT`).
  public static let write: Duration = .seconds(15)
  /// Command (ring, reset, history) action: 15 s.
  public static let command: Duration = .seconds(15)
  /// Enabling or disabling FEA3 indications: 3 s.
  public static let indicationSubscription: Duration = .seconds(3)
  /// Waiting for the link-down event after a disconnect request: 7 s.
  public static let disconnectWait: Duration = .seconds(7)
  /// Default whole-connect timeout (demos use 15–20 s; iOS v2 refuses ≤ 3 s).
  public static let connect: Duration = .seconds(15)
  /// Authentication exchange; the SDKs fold it into the connect timer [I]: we give it its own 15 s.
  public static let authentication: Duration = .seconds(15)
  /// Inter-step delays of the Android connect sequence (§3): link up → MTU request.
  public static let delayBeforeMTURequest: Duration = .milliseconds(100)
  /// MTU callback → service discovery.
  public static let delayBeforeDiscovery: Duration = .milliseconds(200)
  /// Services discovered → enable FEA2 notifications.
  public static let delayBeforeNotify: Duration = .milliseconds(300)
  /// CCCD written → auth phase 1.
  public static let delayBeforeAuth: Duration = .milliseconds(100)
  /// KKM's advice: wait ~1 s after connecting before sending configuration (§3 step 7).
  public static let settleBeforeConfiguration: Duration = .seconds(1)
}
