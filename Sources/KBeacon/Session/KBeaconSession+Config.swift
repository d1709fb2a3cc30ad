import JSON

/// Reads, writes and commands (docs/protocols/kbeacon.md §6, §7, §6.7).
extension KBeaconSession {
  /// The full configuration: v2 reads `type:3` then `type:4` (or `type:12` with sensors), at most two type
  /// bits per request (§3 step 5). When the generation is unknown, a v2 read rejected with 0x103/0x105/
  /// 0x119 is retried as v1 (§1) [I].
  public func readConfiguration(sections: ConfigSections = [.common, .slots, .triggers]) async throws
    -> KBeaconConfiguration
  {
    if generation != .legacy {
      do {
        var merged: KBeaconConfiguration?
        for request in ReadRequest.proFullRead(sections) {
          let part = try await read(request, as: .pro)
          if part.generation == .legacy { return try await readLegacy(first: part) }
          if merged == nil { merged = part } else { merged!.merge(part) }
        }
        generation = .pro
        configuration = merged
        return merged ?? KBeaconConfiguration()
      } catch let error as KBeaconError
        where generation == nil && GenerationDetection.shouldFallBackToLegacy(after: error)
      {
        return try await readLegacy(first: nil)
      }
    }
    return try await readLegacy(first: nil)
  }

  private func readLegacy(first: KBeaconConfiguration?) async throws -> KBeaconConfiguration {
    var config: KBeaconConfiguration
    if let first { config = first } else { config = try await read(.legacy(.initialRead), as: .legacy) }
    config.generation = .legacy
    let trCap = config.common[LegacyKey.trCap] ?? 0
    for request in ReadRequest.legacyFullRead(triggerCapability: trCap).dropFirst() {
      config.merge(try await read(request, as: .legacy))
    }
    generation = .legacy
    configuration = config
    return config
  }

  /// One `getPara` (§6.1, §7).
  public func read(_ request: ReadRequest, as generation: ProtocolGeneration) async throws -> KBeaconConfiguration {
    let messages = try await exchange(.json, request.bytes, timeout: timeouts.read, operation: "getPara")
    guard let body = messages.first else { throw KBeaconError.readNull }
    var config = try ReadResponse.parse(body, generation: generation)
    if case .legacy = request { config.generation = .legacy }
    return config
  }

  /// Writes exactly the keys in `changes` (§6.2, §16 step 7) after the SDK's checks against the device's
  /// own limits; on success the cached configuration takes the new values. A slot entry without `type`
  /// gets the slot's current type from the last read (the SDK always sends it).
  public func write(_ changes: KBeaconConfiguration) async throws {
    var changes = changes
    if let generation { changes.generation = generation }
    // Every advObj entry carries `type` (§6.2): a slot change that does not name it gets the type the
    // device last reported, so callers can send only the keys that changed.
    for i in changes.slots.indices where changes.slots[i].fields["type"] == nil {
      guard let index = changes.slots[i].index, let type = configuration?.slot(index)?.fields["type"] else { continue }
      var fields: JSONObject = ["slot": .int(index), "type": type]
      for (key, value) in changes.slots[i].fields where key != "slot" { fields[key] = value }
      changes.slots[i].fields = fields
    }
    let message = try WriteRequest.bytes(for: changes, device: configuration?.common)
    _ = try await exchange(.json, message, timeout: timeouts.write, operation: "cfg")
    var written = changes
    written.common.fields["pwd"] = nil
    configuration?.merge(written)
  }

  /// Ring, reset or power off (§6.7); success is ack cause 0.
  public func send(_ command: Command) async throws {
    _ = try await exchange(.json, command.bytes, timeout: timeouts.command, operation: "command")
  }
}
