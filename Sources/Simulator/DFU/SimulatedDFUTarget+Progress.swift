import NordicDFU

/// The progress a bootloader keeps in flash (docs/protocols/nordic-dfu.md §2.5–2.6): the executed init command and
/// the executed data objects, taken out for a `SimulatedBootloaderRecord` and put back into a bootloader a
/// later run of the simulation brings up.
extension SimulatedDFUTarget {
  /// The executed init command (empty before one) and the firmware bytes of the executed data objects.
  public var executedProgress: (command: [UInt8], image: [UInt8]) {
    guard commandIsExecuted, validInit != nil else { return ([], []) }
    return (command, Array(image.prefix(executedOffset)))
  }

  /// Takes back progress saved from `executedProgress`, as the bootloader reads its settings page after a
  /// reset: the init command is checked again as at its Execute (a command this bootloader would refuse now
  /// leaves no progress), and an image longer than the command's update is dropped. What a client's Select
  /// then hears is this progress: the command's size and CRC, and the image's.
  public mutating func resume(command: [UInt8], image: [UInt8]) {
    resetProgress()
    guard !command.isEmpty, let packet = try? InitPacket(decoding: command), prevalidate(packet) == nil else { return }
    self.command = command
    commandSize = command.count
    validInit = packet.initCommand
    commandIsExecuted = true
    guard image.count < Self.updateSize(packet.initCommand) else { return }
    self.image = image
    executedOffset = image.count
    objectEnd = image.count
    currentType = image.isEmpty ? .command : .data
  }
}
