import BeaconCore

extension ServedDevice {
  /// Advertises the device's current role (`ServedRole`) while no link is up, and nothing while one is:
  /// - as the application, the next PDU every interval (`SimulatedAdvertiser` over `Context.currentDevice()`,
  ///   read again whenever advertising restarts after a link or the bootloader), re-announcing every
  ///   `reannounceEvery` (nil: never; see the type's doc comment), with the controller's public address, or
  ///   the device's own random one (`ServedAdvertising.settings`);
  /// - as its DFU bootloader, the bootloader's one advertisement at its random address, never re-announced
  ///   [I]: the client connects to the known address, and the kernel's connect scan is reported the
  ///   advertiser when it starts.
  /// A device with presence windows (fleet file `presence`) advertises only inside them, counted from the
  /// start of serving, and is silent (Advertising Enable off) between them; so is an application an update
  /// restarted until it has started (`SimulatedBootloaders.applicationStarts`).
  /// A role change reprograms everything (`HCIAdvertiser.start`: disable, random address, parameters with
  /// the own address type, data, enable). The loop wakes when a link opens or closes, when the role
  /// changes (`LinkGate.poke`) and when the next PDU is due — never by polling.
  static func advertise(_ context: Context, reannounce reannounceEvery: Duration?, hci: ServedAdvertiser) async throws {
    var advertiser = SimulatedAdvertiser(device: await context.currentDevice())
    let start = ContinuousClock.now
    // What the controller advertises now; nil while off.
    var on: ServedRole? = nil
    var lastAnnounce = start
    var announced = false
    while true {
      try Task.checkCancellation()
      let revision = await context.gate.revision
      if await context.gate.isLinked {
        try await hci.stop()
        on = nil
        try await context.gate.waitUntilIdle()
        continue
      }
      let role = context.role
      if case .bootloader(let name, let address) = role, let settings = role.bootloaderSettings {
        if on != role {
          try await hci.start(settings)
          on = role
          context.events(
            .bootloaderAdvertising(
              adapter: context.adapter, fleetAddress: context.fleetAddress, name: name, address: address))
        }
        try await context.gate.waitForChange(since: revision, timeout: nil)
        continue
      }
      if let starts = context.bootloaders?.applicationStarts(context.device.address) {
        // The application an update restarted is still starting (`faults.silentAfterUpdateMs`): off the air.
        if on != nil {
          try await hci.stop()
          on = nil
        }
        let wait = max(ContinuousClock.now.duration(to: starts), .milliseconds(1))
        try await context.gate.waitForChange(since: revision, timeout: wait)
        continue
      }
      if let presence = context.device.presence, case let state = presence.state(at: ContinuousClock.now - start),
        state != .onAir
      {
        // Off the air between presence windows (`PresenceWindow`, offsets since serving started).
        if on != nil {
          try await hci.stop()
          on = nil
        }
        let wake: Duration? =
          if case .silentUntil(let offset) = state {
            max(offset - (ContinuousClock.now - start), .milliseconds(1))
          } else { nil }
        try await context.gate.waitForChange(since: revision, timeout: wake)
        continue
      }
      if on != .application, announced {
        // Advertising restarts after a link or the bootloader: with what the device's configuration says now.
        advertiser = SimulatedAdvertiser(device: await context.currentDevice())
      }
      let now = ContinuousClock.now
      let settings = ServedAdvertising.settings(
        advertisingData: advertiser.nextPDU(elapsed: now - start).data, of: advertiser)
      if on == .application {
        let due = reannounceEvery.map { now - lastAnnounce >= $0 } ?? false
        try await hci.update(settings, reannounce: due)
        if due { lastAnnounce = now }
      } else {
        try await hci.start(settings)
        on = .application
        lastAnnounce = now
      }
      if !announced {
        announced = true
        context.events(
          .advertising(
            adapter: context.adapter, fleetAddress: context.fleetAddress, device: context.device,
            extendedCommands: hci.usesExtendedCommands))
      }
      try await context.gate.waitForChange(since: revision, timeout: advertiser.nextDelay())
    }
  }
}
