import BeaconCore

/// Learns one device's address type by listening for it: an active scan on the central that stops at the
/// first report from that address (any PDU: ADV_IND, scan response, …, all carry the advertiser's address
/// type, Core v5.4 Vol 6 Part B §2.3.1) and returns its type, or nil when nothing from the address is heard
/// within `limit`. Scan errors (no permission, adapter gone) are thrown. It returns once the scan is off
/// where it ran (`Central.stopScans`), so the connect that follows never overlaps it.
enum AddressTypeProbe {
  static func learn(_ address: BluetoothAddress, on central: any Central, within limit: Duration) async throws
    -> AddressType?
  {
    do {
      let heard = try await listen(for: address, on: central, within: limit)
      await central.stopScans()
      return heard
    } catch {
      await central.stopScans()
      throw error
    }
  }

  private static func listen(for address: BluetoothAddress, on central: any Central, within limit: Duration)
    async throws -> AddressType?
  {
    try await withThrowingTaskGroup(of: AddressType?.self) { group in
      group.addTask {
        for try await report in central.scan(ScanParameters(active: true)) where report.address == address {
          return report.addressType
        }
        return nil
      }
      group.addTask {
        try await Task.sleep(for: limit)
        return nil
      }
      defer { group.cancelAll() }
      return try await group.next() ?? nil
    }
  }
}
