import Testing

@testable import Simulator

@Suite(.timeLimit(.minutes(3))) struct SimulationTests {
  @Test func simulatorAnswersToTheSimAdapterName() {
    #expect(Simulation.adapterName == "sim")
  }
}
