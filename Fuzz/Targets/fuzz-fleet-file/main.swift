import BeaconCore
import Foundation
import FuzzSupport
import KBeacon

@testable import Simulator

// A simulated fleet file (`--adapter sim:FILE`, README "The simulated fleet"): decoded, then each device
// made as `sim` makes it — a KBeacon's starting configuration from its frame sections and settings
// overlay, the advertising that configuration gives, and a few advertising PDUs (decoded back by the
// scanner's parser). `@testable`: the KBeacon starting profile is the simulator's internal step.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  guard let fleet = try? SimulatedFleet.decode(Data(bytes), file: "fuzz-fleet.json") else { return 0 }
  for device in fleet.devices.prefix(8) {
    var entry = device
    if device.kind.isKBeacon {
      let profile = KBeaconSimulation.startingProfile(device)
      entry = device.advertising(profile.factoryConfiguration)
    }
    var advertiser = SimulatedAdvertiser(device: entry)
    for _ in 0..<3 {
      _ = DecodedAdvertisement(advertiser.nextPDU(elapsed: .seconds(1)).data)
      _ = advertiser.nextDelay()
    }
    if let response = advertiser.scanResponse { _ = DecodedAdvertisement(response) }
  }
  return 0
}
