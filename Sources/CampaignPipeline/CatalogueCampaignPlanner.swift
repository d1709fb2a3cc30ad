import BeaconCore
import Firmware
import FirmwareIO
import Fleet
import Foundation
import HTTP
import NordicDFU
import Profiles

/// What `dfu update --firmware latest|VERSION` does before its campaign, so that no device goes to its
/// bootloader before every package it needs is in hand (docs/protocols/kbeacon.md §11):
/// 1. survey: read each selected device's `model`, `hver` and `ver` over a KBeacon session (read only;
///    the battery floor and the --model/--hardware filters are applied first, so skipped devices are not
///    even connected to);
/// 2. fetch each model's catalogue once;
/// 3. per (model, hver), pick the release (the newest, or the version asked for); when some surveyed
///    device is older, download and verify its package once (shared by every device and hardware version
///    that names the same package URL) and check it like `--package` is checked.
/// Any catalogue or package failure ends the run here, before any device is touched beyond that read;
/// and before even that, `checkReachable` makes an online run whose catalogue is not there at all fail
/// before the scan.
///
/// A device the run's journal left mid-transfer (`leftMidTransfer`: a resume, or a shared run another gateway
/// died in) may be waiting in its bootloader, which advertises no battery and has no configuration service to
/// read. It is surveyed whatever its battery (its application may be back), and when it does not answer, its
/// model and hardware version are taken from the fleet registry, where the interrupted visit recorded what it
/// read before the jump (`recall`), and the version it was being updated from from the journal's `ver` change
/// (`transferredFrom`) — so its package is resolved, and the transfer the bootloader holds part of goes on. The
/// --model/--hardware filters are not applied to it: a device left in its bootloader is finished, as a
/// `--package` resume finishes it (its old application may be gone).
struct CatalogueCampaignPlanner: Sendable {
  var cache: FirmwareCache
  var location: CatalogueLocation
  var wanted: FirmwareWanted
  var identifier: any FirmwareUpdater
  /// The `--package` checks (hardware version 52 by default, --public-key …).
  var expectations: DeviceExpectations
  /// An updater for one package's images.
  var updater: @Sendable (DFUPackage) -> any FirmwareUpdater
  var plan: FirmwarePlan
  var batteries: [String: Int]
  var parallel: Int
  /// Where the survey, the catalogues and the packages are reported.
  var emit: @Sendable (PipelineEvent) -> Void
  /// The targets the run's journal left mid-transfer (by address), and the version each was being updated
  /// from, where the journal has it.
  var leftMidTransfer: Set<String> = []
  /// Those of them the scan heard only as their bootloader: not surveyed (their application is silent, and a
  /// connect to it would only wait out the link timeout), recalled from the registry straight away.
  var waitingInBootloader: Set<String> = []
  var transferredFrom: [String: FirmwareVersion] = [:]
  /// What the fleet registry last knew of a device (nil: nothing, or the registry cannot be read).
  var recall: @Sendable (String) async -> DeviceIdentity? = { _ in nil }

  /// The packages resolved for this campaign, for its report.
  struct Resolved {
    var route: CatalogueRoute
    /// Package URL → (version, sha256), of every package downloaded or taken from the cache.
    var packages: [String: (version: FirmwareVersion, sha256: String)]
  }

  /// Online, the catalogue's base must be there — for a `file://` base, a folder; for http(s), a server that
  /// answers a HEAD of the base with any HTTP status — or the run ends before any radio work. Offline: nothing
  /// to check (the cache is read once the models are known). A server that cannot be reached fails in one
  /// line naming the base (without credentials), libcurl's reason and what to try, `--offline` included.
  public static func checkReachable(_ location: CatalogueLocation, cache: FirmwareCache) async throws {
    guard let client = cache.client else { return }
    if let folder = location.filePath {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw CampaignFailure("no device was touched: the catalogue folder \(folder) does not exist")
      }
      return
    }
    do {
      _ = try await client.fetch(HTTPRequest(method: .head, url: location.base))
    } catch let error as HTTPClientError where error.kind == .status {
      return  // the server answers; whether the model's catalogue is there is seen once the models are known
    } catch let error as HTTPClientError {
      // One line: the base once (without credentials), libcurl's reason, the client's hint, and the way out
      // when the server is down but earlier runs filled the cache.
      let hints = [error.hint, "or add --offline to use the catalogues and packages already in the cache"].compactMap {
        $0
      }
      throw CampaignFailure(
        "no device was touched: the catalogue \(error.url) cannot be reached: \(error.reason) (\(hints.joined(separator: "; ")))"
      )
    } catch {
      throw CampaignFailure("no device was touched: the catalogue \(location) cannot be reached: \(error)")
    }
  }

  func resolve(_ targets: [Target]) async throws -> Resolved {
    let (read, answered) = await survey(targets)
    var surveyed = read
    emit(
      .surveyed(
        read: surveyed.count, of: targets.count,
        groups: Dictionary(grouping: surveyed.values, by: { "\($0.model ?? "?") \($0.hardware ?? "?")" }).mapValues(
          \.count)))
    surveyed.merge(await recallLeftMidTransfer(targets, answered: answered)) { read, _ in read }
    var catalogues: [String: FirmwareCatalogue] = [:]
    for model in Set(surveyed.values.compactMap(\.model)).sorted() {
      do {
        let snapshot = try await cache.catalogue(model: model, location: location)
        emit(.catalogueRead(url: snapshot.url, origin: snapshot.origin))
        catalogues[model] = snapshot.catalogue
      } catch {
        throw CampaignFailure("no device was updated: the \(model) catalogue could not be read: \(error)")
      }
    }
    var plans: [CatalogueRoute.Key: CatalogueRoute.Plan] = [:]
    var fetched = FetchedPackages()
    let pairs = Dictionary(grouping: surveyed.values.filter { $0.model != nil && $0.hardware != nil }) {
      CatalogueRoute.Key(model: $0.model!, hardware: $0.hardware!)
    }
    for (key, devices) in pairs.sorted(by: { ($0.key.model, $0.key.hardware) < ($1.key.model, $1.key.hardware) }) {
      plans[key] = try await plan(key, devices: devices, catalogue: catalogues[key.model]!, fetched: &fetched)
    }
    return Resolved(route: CatalogueRoute(plans: plans, surveyed: surveyed), packages: fetched.sources)
  }

  /// The packages fetched so far: by what names a package (`reuse`), and by where the bytes came from, for the
  /// report.
  struct FetchedPackages {
    var byReuse: [String: FirmwareInstall] = [:]
    var sources: [String: (version: FirmwareVersion, sha256: String)] = [:]
  }

  /// One (model, hardware) pair's plan from its model's catalogue and what its devices run: the package when
  /// some device is older than the release (fetched and verified, or one fetched already for another pair),
  /// the release when none is, the reason when the catalogue has none; nil when the catalogue says nothing.
  func plan(
    _ key: CatalogueRoute.Key, devices: [DeviceIdentity], catalogue: FirmwareCatalogue, fetched: inout FetchedPackages
  ) async throws -> CatalogueRoute.Plan? {
    let choices = devices.map {
      FirmwareChoice.choose(catalogue, hardware: key.hardware, current: $0.firmware, wanted: wanted)
    }
    if let entry = choices.compactMap({ if case .install(let e) = $0 { e } else { nil } }).first {
      let url = location.packageURL(entry)
      // One download per package, shared by the (model, hardware) pairs whose entries name the same file the
      // same way: an entry that names it with another version, hash or size is fetched and checked on its
      // own (it was given the first entry's package unchecked — another model's firmware).
      let reuse = [url, entry.appVersion, entry.sha256.map(Hex.encode) ?? "", entry.size.map(String.init) ?? ""]
        .joined(separator: "\n")
      if let install = fetched.byReuse[reuse] { return .install(install) }
      let (install, source) = try await fetch(entry, key: key, url: url)
      fetched.byReuse[reuse] = install
      fetched.sources[source] = (entry.version, install.packageSHA256 ?? "")
      return .install(install)
    } else if case .unavailable(let reason) = choices.first {
      return .none(reason)
    } else if case .upToDate(_, let newest) = choices.first, let newest {
      // With --firmware V…, the version asked for is what the devices are measured against (they were
      // told "the catalogue offers 5.14" when 5.13 was asked for).
      if case .version(let asked) = wanted { return .current(asked, asked: true) }
      return .current(newest)
    }
    return nil
  }

  /// Downloads (or takes from the cache) and verifies one release, then checks it as `--package` would.
  /// `source` is where the bytes came from: this catalogue's URL when downloaded now, the URL the cached copy
  /// was fetched from otherwise (with `--offline` it may be another server than today's `--catalog`).
  func fetch(_ entry: CatalogueEntry, key: CatalogueRoute.Key, url: String) async throws -> (
    install: FirmwareInstall, source: String
  ) {
    emit(.fetching(file: entry.appFileName))
    let cached: CachedPackage
    do {
      cached = try await cache.package(model: key.model, hardware: key.hardware, entry: entry, location: location)
    } catch let error as HTTPClientError {
      // Its text starts with the URL (without credentials) already: the URL once.
      throw CampaignFailure("no device was updated: \(error)")
    } catch {
      throw CampaignFailure("no device was updated: \(RedactedURL(url)): \(error)")
    }
    let source = cached.downloaded ? RedactedURL(url).description : cached.url
    emit(
      .packageReady(
        file: entry.appFileName, version: entry.appVersion, model: key.model, hardware: key.hardware,
        downloaded: cached.downloaded,
        source: source, sha256: cached.sha256))
    let package = try DFUPackage.open(path: cached.path)
    do {
      try PackageValidator(expectations: expectations).validate(package)
    } catch {
      throw CampaignFailure("no device was updated: \(cached.path) refused before connecting: \(error.description)")
    }
    return (FirmwareInstall(version: entry.version, updater: updater(package), packageSHA256: cached.sha256), source)
  }

  /// Reads each device's identity, `parallel` at a time; devices the filters skip are not connected to.
  /// Returns the identities the filters keep, and every device that answered (kept or not).
  func survey(_ targets: [Target]) async -> (read: [String: DeviceIdentity], answered: Set<String>) {
    let work = FirmwareWork(plan: plan, updater: identifier, batteries: batteries)
    let eligible = targets.filter { t in
      let address = t.address.description
      if leftMidTransfer.contains(address), waitingInBootloader.contains(address) { return false }
      guard let floor = plan.minimumBattery, !leftMidTransfer.contains(address) else { return true }
      return (batteries[address] ?? -1) >= floor
    }
    var found: [String: DeviceIdentity] = [:]
    var answered: Set<String> = []
    await withTaskGroup(of: (String, DeviceIdentity?).self) { group in
      var iterator = eligible.makeIterator()
      func next() {
        guard let target = iterator.next() else { return }
        group.addTask { (target.address.description, try? await identifier.identify(target)) }
      }
      for _ in 0..<parallel { next() }
      while let (address, identity) = await group.next() {
        if let identity {
          answered.insert(address)
          if work.reject(identity) == nil { found[address] = identity }
        }
        next()
      }
    }
    return (found, answered)
  }
}

extension CatalogueCampaignPlanner {
  /// The identities of the targets left mid-transfer that did not answer the survey: model and hardware version
  /// from the fleet registry, the firmware the journal says the transfer started from (else the registry's);
  /// said in one line, with those the registry has no model and hardware version for (their visit fails: no
  /// package can be chosen without them).
  func recallLeftMidTransfer(_ targets: [Target], answered: Set<String>) async -> [String: DeviceIdentity] {
    let silent = targets.map(\.address.description).filter { leftMidTransfer.contains($0) && !answered.contains($0) }
    guard !silent.isEmpty else { return [:] }
    var recalled: [String: DeviceIdentity] = [:]
    var unknown: [String] = []
    for address in silent {
      guard var identity = await recallIdentity(address) else {
        unknown.append(address)
        continue
      }
      if let from = transferredFrom[address] { identity.firmware = from }
      recalled[address] = identity
    }
    emit(.recalledLeftMidTransfer(recalled: recalled.keys.sorted(), unknown: unknown))
    return recalled
  }

  /// What the fleet registry knows of a device that a package can be chosen by: its model and hardware version
  /// (a row known only from sightings has neither), with the firmware it last recorded; else nil.
  func recallIdentity(_ address: String) async -> DeviceIdentity? {
    guard let identity = await recall(address), identity.model != nil, identity.hardware != nil else { return nil }
    return identity
  }
}
