import BeaconCore
import FuzzSupport
import Profiles

// A profile file (README "Profiles"; JSON read with positions for its diagnostics) as `plan`, `apply` and
// `profile check` take it: loaded with a fixed inventory, every diagnostic formatted, its templates filled
// for three devices, each device's desired state resolved, diffed against an empty device and translated
// for a legacy KBeacon, its selection asked about a candidate; a `commands` section filled in per device and
// its items held to an answer.
private let inventory = Array("address,aisle,tags\nDD:34:02:06:D1:01,A1,aisle\nDD:34:02:06:D1:02,B7,\n".utf8)
private let addresses = ["DD:34:02:06:D1:01", "DD:34:02:06:D1:02", "C0:00:00:00:00:09"]

/// The CLI's Eddystone-URL rule (ProfileFiles.eddystoneURLCheck): the scanner's own encoder.
private let urlCheck: FieldCheck.URLCheck = { url in
  do {
    _ = try EddystoneURLCodec.encode(url)
    return nil
  } catch {
    return String(describing: error)
  }
}

Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  let loaded: LoadedProfile
  do {
    loaded = try LoadedProfile.load(
      file: "fuzz/profile.json", read: { path in path == "fuzz/profile.json" ? bytes : inventory }, urlCheck: urlCheck)
  } catch let error as ProfileDiagnostics {
    _ = error.description
    return 0
  } catch {
    return 0
  }
  let resolver = DesiredResolver(urlCheck: urlCheck)
  _ = TemplatePreflight(profile: loaded, resolver: resolver).problems(addresses: addresses)
  _ = RenameSelectionCheck.warning(loaded)
  for address in addresses {
    _ = loaded.profile.select.rejection(of: Selection.Candidate(address: address, name: "KBPro_0601", rssi: -70))
    // A `commands` section (text commands): filled in for the device, each item held to a typical AT answer.
    if let commands = loaded.profile.commands,
      case .success(let items) = TextCommandResolver.resolve(commands, loaded.variables(for: address))
    {
      for item in items {
        _ = item.accepts(["+NAME:A1", "OK"])
        _ = item.change(answer: ["ERROR"]).description
      }
    }
    _ = loaded.profile.select.rejection(model: "KBPro", firmware: FirmwareVersion("5.30"))
    guard case .success(let desired) = resolver.resolve(loaded.profile.desired, loaded.variables(for: address)) else {
      continue
    }
    let changes = ConfigDiff.changes(desired: desired, actual: DeviceConfigView())
    _ = changes.map(\.description)
    _ = ConfigDiff.patch(changes, desired: desired, actual: DeviceConfigView())
    _ = LegacyTranslation.desiredFlat(desired, actual: [:])
  }
  return 0
}
