import OwnThreads

/// `OwnThreads.BlockingIO`, named here so that every file of the command line reaches it without importing
/// OwnThreads.
typealias BlockingIO = OwnThreads.BlockingIO
