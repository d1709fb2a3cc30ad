import BeaconCore
import TextStream

/// One link to a text-stream device as `plan`/`apply` of a `commands` profile need it: send a
/// command, get its answer's lines. `TextStreamCommandSession` is the live one; tests may script their own.
public protocol TextCommandSession: Sendable {
  /// Sends `command` (the device profile's terminator appended) and returns the answer's lines (split at
  /// CR/LF, empty ones dropped). `firstPacket`/`interFragment` replace the profile's receive timeouts.
  func send(_ command: String, firstPacket: Duration?, interFragment: Duration?) async throws -> [String]
  func close() async
}

/// Opens `TextCommandSession`s.
public protocol TextCommandOpener: Sendable {
  func open(_ target: Target) async throws -> any TextCommandSession
}

/// Connects through a `Central` (a BlueZ adapter or the simulated fleet), sets the text stream up as the
/// Tertium libraries do (`GATTTextStreamLink.open`: MTU, discovery, the profile detected by service, Tx
/// notifications on) and drives it with a `TextStreamClient` (docs/protocols/text-stream.md).
public struct TextStreamCommandOpener: TextCommandOpener {
  public var central: any Central
  public var connectTimeout: Duration
  /// Where each device's text-stream handles are remembered between visits, as a KBeacon's are
  /// (`KBeaconOpener.ambientGATTCache`, the command's `--no-gatt-cache` choice); nil discovers every time.
  public var gattCache: (any GATTCacheStore)?

  public init(
    central: any Central, connectTimeout: Duration = .seconds(15),
    gattCache: (any GATTCacheStore)? = KBeaconOpener.ambientGATTCache
  ) {
    self.central = central
    self.connectTimeout = connectTimeout
    self.gattCache = gattCache
  }

  public func open(_ target: Target) async throws -> any TextCommandSession {
    let bearer = try await central.connect(to: target.address, type: target.addressType, timeout: connectTimeout)
    let client = GATTClient(bearer: bearer)
    let cache = gattCache.map { ($0, GATTCacheKey(address: target.address, type: target.addressType)) }
    do {
      let link = try await GATTTextStreamLink.open(client, cache: cache)
      // A line the device says on being subscribed is waited for, so it never opens the first answer.
      return TextStreamCommandSession(
        client: TextStreamClient(
          link: link, settle: link.profile.timeouts.interFragment,
          quietBeforeCommand: link.profile.timeouts.interFragment * 2))
    } catch {
      await client.close()
      throw error
    }
  }
}

/// `TextCommandSession` over a `TextStreamClient`.
public struct TextStreamCommandSession: TextCommandSession {
  public let client: TextStreamClient

  public init(client: TextStreamClient) { self.client = client }

  public func send(_ command: String, firstPacket: Duration?, interFragment: Duration?) async throws -> [String] {
    let timeouts = client.timeouts.overriding(firstPacket: firstPacket, interFragment: interFragment)
    return try await client.send(command, timeouts: timeouts).lines
  }

  public func close() async { await client.close() }
}

extension TextStreamError: ClassifiedFailure {
  /// Silence, a busy device, a lost link or a send timeout may pass on a later attempt; a device without a
  /// text-stream service, a refused write or an empty command would fail again.
  public var failureKind: FailureKind {
    switch self {
    case .sendTimeout, .deviceBusy, .receiveTimeout, .linkLost, .commandInFlight: .transient
    case .writeRejected, .emptyCommand, .notTextStream, .cancelled: .permanent
    }
  }
}
