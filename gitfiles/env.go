package gitfiles

import "os"

// osEnviron is os.Environ; a variable so tests can see what git is given.
var osEnviron = os.Environ
