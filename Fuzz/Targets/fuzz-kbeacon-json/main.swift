import FuzzSupport
import JSON
import KBeacon

// The KBeacon JSON parser with the wire preset (docs/protocols/kbeacon.md §4.2, §6): a device's `getPara` answer
// read into the configuration model of either generation, its problems listed, written back as a device
// would be sent it, and read as a command message the way the simulated device does; the same bytes
// through the file preset with positions, as profiles and inventories are read.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  _ = try? JSONParser.parseWithPositions(bytes, options: .file)
  guard let value = try? JSONParser.parse(bytes) else { return 0 }
  _ = JSONWriter.text(value)
  _ = JSONWriter.pretty(value)
  guard let object = value.objectValue else { return 0 }
  _ = Command(json: object)
  for generation in [ProtocolGeneration.pro, .legacy] {
    guard let configuration = try? KBeaconConfiguration(deviceJSON: object, generation: generation) else { continue }
    _ = configuration.problems()
    _ = JSONWriter.text(.object(configuration.deviceJSON))
    _ = try? WriteRequest.bytes(for: configuration)
  }
  _ = try? ReadResponse.parse(bytes, generation: .pro)
  return 0
}
