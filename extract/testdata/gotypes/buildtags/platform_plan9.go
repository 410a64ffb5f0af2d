package main

// platform is left out of the build by the file name (_plan9).
func platform() string { return "plan9" }

// Handle is left out of the build by the file name.
type Handle struct{}

// Close is left out of the build by the file name.
func (Handle) Close() {}
