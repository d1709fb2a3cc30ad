import BeaconCore
import KBeacon
import Profiles

/// One device's `plan`/`apply` visit.
struct ProfileWork: CampaignWork {
  let profile: LoadedProfile
  let opener: any SessionOpener
  let passwords: ApplyCampaign.Passwords
  let resolver: DesiredResolver
  let dryRun: Bool
  /// Where each configuration read is recorded (best effort), if anywhere.
  var registry: RegistryRecorder? = nil

  /// Why verification failed: the keys that did not read back as written.
  struct VerificationFailure: Error, ClassifiedFailure, CustomStringConvertible {
    var mismatches: [ConfigChange]
    var failureKind: FailureKind { .permanent }
    var description: String {
      "read-back differs after writing: "
        + mismatches.map { "\($0.scope) \($0.key) is \($0.old?.description ?? "(unset)"), expected \($0.new)" }.joined(
          separator: "; ")
    }
  }

  /// One attempt: connect, read, plan, write, verify. Throws on failures worth classifying.
  func attempt(_ target: Target, attempt: Int, context: CampaignContext) async throws -> DeviceOutcome {
    let address = target.address.description
    // The `connecting` record commits while the link opens (first on a fenced journal): no configuration is
    // written before `writing` is journalled.
    let (session, rotated) = try await context.step(
      address, .connecting, attempt: attempt, alongside: { try await openSession(target) },
      discard: { await $0.0.close() })
    // The link is closed before the visit returns, so its controller slot is free for the next device.
    return try await Self.closing(session) {
      try await visit(target, session: session, rotated: rotated, attempt: attempt, context: context)
    }
  }

  /// Runs `body` and closes `session` on every path, thrown errors included.
  static func closing<T: Sendable>(_ session: any ConfigurationSession, _ body: () async throws -> T) async throws -> T
  {
    do {
      let value = try await body()
      await session.close()
      return value
    } catch {
      await session.close()
      throw error
    }
  }

  /// Everything after the link is open: read, plan, write, verify.
  func visit(
    _ target: Target, session: any ConfigurationSession, rotated: Bool, attempt: Int, context: CampaignContext
  ) async throws -> DeviceOutcome {
    let run = context.run
    let journal = context.journal
    let address = target.address.description
    context.announce(address, .reading, attempt: attempt)
    let sections = Self.sections(of: profile.profile.desired)
    let actual = try await session.readConfiguration(sections)
    await registry?.read(address: address, configuration: actual)
    let model = actual.common["model"]?.textValue
    let firmware = actual.common["ver"]?.textValue.flatMap(FirmwareVersion.init)
    if let reason = profile.profile.select.rejection(model: model, firmware: firmware) { return .skipped(reason) }

    var desired: DeviceConfigView
    switch resolver.resolve(profile.profile.desired, profile.variables(for: address)) {
    case .success(let d): desired = d
    case .failure(let f): return .failed(f.description, .permanent)
    }
    let problems =
      DeviceChecks.problems(desired: desired, actual: actual, allowUnreachable: profile.profile.allowUnreachable)
      + SlotTypeChange.problems(profile: profile.profile, desired: desired, actual: actual)
    if !problems.isEmpty { return .failed(problems.joined(separator: "; "), .permanent) }
    if actual.isLegacy {
      switch LegacyTranslation.desiredFlat(desired, actual: actual.common) {
      case .success(let flat): desired = DeviceConfigView(common: flat, isLegacy: true)
      case .failure(let f): return .failed(f.description, .permanent)
      }
    }

    var changes = ConfigDiff.changes(desired: desired, actual: actual)
    if let new = passwords.new, !rotated {
      desired.common["pwd"] = .text(new.value)
      changes.append(ConfigChange(scope: .common, key: "pwd", old: nil, new: .text(new.value)))
    }
    let journalled = changes.map(Self.journalChange)
    if changes.isEmpty {
      // Compliant because an earlier attempt of this run wrote it, its acknowledgement lost (`LandedWrite`)?
      // The new password that let this session in counts among what it wrote.
      var wrote = desired
      if rotated, let new = passwords.new { wrote.common["pwd"] = .text(new.value) }
      guard !dryRun,
        let landed = try await LandedWrite.find(journal: journal, run: run, address: address, desired: wrote)
      else {
        return .compliant
      }
      if !landed.acknowledged {
        try await journal.record(run: run, address: address, state: .working, step: "written", countWrite: true)
      }
      return .updated(landed.changes.map(Self.masked))
    }
    if dryRun {
      try await journal.record(run: run, address: address, state: .planned, changes: journalled)
      return .planned(changes.map(Self.masked))
    }

    try await context.step(address, .writing, attempt: attempt, changes: journalled)
    let patch = ConfigDiff.patch(changes, desired: desired, actual: actual)
    try await session.write(patch)
    let written = JournalUpdate(
      run: run, address: address, state: .working, step: "written", countAttempt: false, countWrite: true)

    let readBack: DeviceConfigView
    if let new = passwords.new, !rotated {
      try await journal.record(written)
      // The password only counts as rotated once a new link authenticates with it.
      try await context.step(address, .reconnecting, attempt: attempt)
      await session.close()
      let verifier = try await opener.open(target, password: new)
      readBack = try await Self.closing(verifier) {
        try await context.step(address, .verifying, attempt: attempt)
        return try await verifier.readConfiguration(sections)
      }
    } else {
      // The `written` record commits while the values are read back (`CampaignContext.record(_:alongside:)`).
      context.announce(address, .verifying, attempt: attempt)
      readBack = try await context.record(written, alongside: { try await session.readConfiguration(sections) })
    }
    await registry?.read(address: address, configuration: readBack)
    desired.common["pwd"] = nil
    let mismatches = ConfigDiff.changes(desired: desired, actual: readBack)
    guard mismatches.isEmpty else { throw VerificationFailure(mismatches: mismatches) }
    return .updated(changes.map(Self.masked))
  }

  /// Opens with the current password; when rotating and the device refuses it, tries the new password
  /// once (an earlier run may have rotated it). Returns whether the device already has the new one.
  func openSession(_ target: Target) async throws -> (any ConfigurationSession, Bool) {
    do {
      return (try await opener.open(target, password: passwords.current), false)
    } catch let error as any ClassifiedFailure where error.failureKind == .wrongPassword {
      guard let new = passwords.new else { throw error }
      return (try await opener.open(target, password: new), true)
    }
  }

  /// The sections a profile manages (common keys are always read: model, version and limits live there).
  static func sections(of desired: DesiredState) -> ConfigSections {
    var sections: ConfigSections = .common
    if !desired.slots.isEmpty { sections.insert(.slots) }
    if !desired.triggers.isEmpty { sections.insert(.triggers) }
    if !desired.sensors.isEmpty { sections.insert(.sensors) }
    return sections
  }

  static func masked(_ c: ConfigChange) -> ConfigChange {
    c.key == "pwd" ? ConfigChange(scope: c.scope, key: c.key, old: nil, new: .text("••••••••")) : c
  }

  static func journalChange(_ c: ConfigChange) -> JournalChange {
    let m = masked(c)
    return JournalChange(scope: m.scope.description, key: m.key, old: m.old?.description, new: m.new.description)
  }
}
