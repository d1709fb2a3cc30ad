import BeaconCore
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `ScanRunner.completeWhenSeen`: a campaign that names its devices stops scanning once it has heard them.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct ScanCompletionTests {
  static func scan(completeWhenSeen: Set<BluetoothAddress>, seconds: Int) async throws -> [DeviceRecord] {
    let central = try await CentralFactory.make(.simulated(fleetFile: nil), pace: .unpaced)
    let runner = ScanRunner(
      settings: DiscoverySettings(window: .seconds(seconds)), duration: .seconds(seconds), active: true, mode: .json,
      completeWhenSeen: completeWhenSeen)
    return try await runner.scan(central: central, emit: { _ in }).results
  }

  @Test func theScanEndsAboutASettleAfterTheLastNamedDeviceIsHeard() async throws {
    let named = Set(DemoFleet.fleet.devices.prefix(3).map(\.address))
    let records = try await Self.scan(completeWhenSeen: named, seconds: 60)
    #expect(named.isSubset(of: Set(records.map(\.address))), "every named device was heard")
    let firstHeard = try #require(records.filter { named.contains($0.address) }.map(\.firstSeen).max())
    let lastReport = try #require(records.map(\.lastSeen).max())
    // The scan went on for the 1 s settle after the last named device, not for the whole minute.
    #expect(lastReport >= firstHeard && lastReport <= firstHeard + 1.0, "last report at \(lastReport) s")
  }

  @Test func withoutNamedDevicesTheScanRunsItsFullLength() async throws {
    let records = try await Self.scan(completeWhenSeen: [], seconds: 20)
    #expect(try #require(records.map(\.lastSeen).max()) > 15)
  }

  @Test func aNamedDeviceThatNeverAdvertisesKeepsTheScanGoing() async throws {
    let absent = try #require(BluetoothAddress("00:11:22:33:44:55"))
    let present = DemoFleet.fleet.devices[0].address
    let records = try await Self.scan(completeWhenSeen: [absent, present], seconds: 20)
    #expect(try #require(records.map(\.lastSeen).max()) > 15)
  }
}
