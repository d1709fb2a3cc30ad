import ArgumentParser
import Foundation
import KBeacon

/// `beacon-provision history ADDR`: a KBeacon's logged sensor records (docs/protocols/kbeacon.md §9), with
/// device-relative times moved onto the host clock.
struct HistoryCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "history", abstract: "Read a KBeacon's logged sensor records.",
    discussion: """
      unread reads records not read before and marks them read; forward and reverse leave them unread.

      \(ExitStatus.kbeaconSession)
      """)

  enum Order: String, ExpressibleByArgument, CaseIterable {
    case unread, forward, reverse
    var wire: HistoryRequest.Order {
      switch self {
      case .unread: .unread
      case .forward: .forward
      case .reverse: .reverse
      }
    }
  }

  enum Sensor: String, ExpressibleByArgument, CaseIterable {
    case ht, alarm, pir, light, voc, co2
    var type: SensorType {
      switch self {
      case .ht: .humidity
      case .alarm: .alarm
      case .pir: .pir
      case .light: .light
      case .voc: .voc
      case .co2: .co2
      }
    }
  }

  @Argument(help: "The device address.") var address: String
  @Option(help: "unread, forward or reverse.") var order: Order = .unread
  @Option(help: "ht, alarm, pir, light, voc or co2.") var sensor: Sensor = .ht
  @Option(help: "At most this many records.") var limit = 10_000
  @Flag(help: "Print CSV.") var csv = false
  @OptionGroup var adapter: AdapterOptions
  @OptionGroup var peer: PeerAddressOptions
  @OptionGroup var passwordOptions: PasswordOptions
  @OptionGroup var gattCache: GATTCacheOptions
  @OptionGroup var logging: LoggingOptions

  func run() async throws { try await execute { print($0) } }

  func execute(emit: @Sendable (String) -> Void) async throws {
    let target = try parseAddress(address)
    let records = try await KBeaconConnector.withSession(
      target, adapter: adapter.adapter, peer: peer, passwordOptions: passwordOptions, sections: [.common],
      gattCache: gattCache.store(stateDirectory: StateDirectory.resolve(nil))
    ) { session, _ in try await session.readHistory(sensor: sensor.type, order: order.wire, limit: limit) }
    if csv { emit(HistoryRendering.csvHeader(sensor.type)) }
    for record in records { emit(csv ? HistoryRendering.csv(record) : HistoryRendering.line(record)) }
    if !csv { emit("\(records.count) records") }
  }
}

/// Text and CSV rows for history records.
enum HistoryRendering {
  static func time(_ utc: UInt32) -> String {
    Date(timeIntervalSince1970: TimeInterval(utc)).formatted(.iso8601)
  }

  static func csvHeader(_ sensor: SensorType) -> String {
    switch sensor {
    case .alarm: "utc,time,status"
    case .pir: "utc,time,indication"
    case .light: "utc,time,type,lux"
    case .voc: "utc,time,voc_index,nox_index"
    case .co2: "utc,time,co2_ppm,temperature_c,humidity_pct"
    default: "utc,time,temperature_c,humidity_pct"
    }
  }

  static func fields(_ reading: SensorRecord.Reading) -> [String] {
    switch reading {
    case .humidity(let t, let h): [fmt(t), fmt(h)]
    case .alarm(let s): [String(s)]
    case .pir(let i): [String(i)]
    case .light(let type, _, let lux): [String(type), String(lux)]
    case .voc(let v, let n): [String(v), String(n)]
    case .co2(let ppm, let t, let h): [String(ppm), fmt(t), fmt(h)]
    }
  }

  static func fmt(_ v: Double) -> String { String(format: "%.2f", v) }

  static func csv(_ r: SensorRecord) -> String {
    ([String(r.utc), time(r.utc)] + fields(r.reading)).joined(separator: ",")
  }

  static func line(_ r: SensorRecord) -> String {
    let values: String
    switch r.reading {
    case .humidity(let t, let h): values = "\(fmt(t)) °C  \(fmt(h)) %"
    case .co2(let ppm, let t, let h): values = "\(ppm) ppm  \(fmt(t)) °C  \(fmt(h)) %"
    default: values = fields(r.reading).joined(separator: "  ")
    }
    return "\(time(r.utc))  \(values)"
  }
}
