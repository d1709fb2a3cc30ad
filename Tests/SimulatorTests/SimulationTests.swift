import Testing

@testable import Simulator

@Suite struct SimulationTests {
  @Test func simulatorAnswersToTheSimAdapterName() {
    #expect(Simulation.adapterName == "sim")
  }
}
