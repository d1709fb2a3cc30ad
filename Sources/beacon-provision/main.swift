import BeaconProvisionCLI

// The executable is only this call; everything else lives in BeaconProvisionCLI so tests run commands in
// process.
await BeaconProvision.runAsRoot()
