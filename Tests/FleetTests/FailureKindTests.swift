import BeaconCore
import Testing

@testable import Fleet

/// Which failures a campaign retries (`FailureKind`), for the errors the GATT layer raises.
@Suite(.timeLimit(.minutes(2))) struct FailureKindTests {
  @Test func anATTTransactionTimeoutIsRetriedOnAFreshLink() {
    #expect(GATTError.transactionTimeout(request: .exchangeMTURequest, after: .seconds(30)).failureKind == .transient)
  }

  @Test func aPeerThatBreaksTheProtocolOrLacksACharacteristicIsNot() {
    #expect(GATTError.protocolViolation("a Read Response to a Write Request").failureKind == .permanent)
    #expect(GATTError.notFound("characteristic 8EC90003").failureKind == .permanent)
    #expect(GATTError.valueTooLong(count: 600, limit: 512).failureKind == .permanent)
  }
}
