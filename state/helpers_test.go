package state

import "encoding/hex"

func hexOf(b [32]byte) string { return hex.EncodeToString(b[:]) }
