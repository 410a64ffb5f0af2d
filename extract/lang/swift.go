package lang

// RefSwiftBase is the type of the reference a Swift class makes to the
// first entry of its inheritance clause, which the syntax does not say is
// a superclass or a protocol: resolved to a protocol (FactSwiftProtocol)
// it is an implements edge, otherwise an inherits_from edge.
const RefSwiftBase = "swift_base"

// FactSwiftProtocol, followed by a declared name, marks a Swift protocol
// of the file's scope; the chain is unused.
const FactSwiftProtocol = "P:"
