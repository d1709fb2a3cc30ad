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

  /// A bootloader answering at the address is retried like a transient failure (a campaign's pause may see
  /// it leave), but it is a kind of its own: `reconcile` waits out the bootloader's timeout for it instead of
  /// counting a failure, recognising it by this kind rather than by the wording of its reason.
  @Test func aBootloaderAtTheAddressIsRetryableAndKnownByItsKind() {
    #expect(BootloaderAtAddress().failureKind == .bootloaderAtAddress)
    #expect(FailureKind.bootloaderAtAddress.isRetryable && FailureKind.transient.isRetryable)
    #expect(!FailureKind.permanent.isRetryable && !FailureKind.wrongPassword.isRetryable)
    #expect(FailureKind(rawValue: FailureKind.bootloaderAtAddress.rawValue) == .bootloaderAtAddress)
  }
}
