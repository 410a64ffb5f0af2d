package lang

// ScalaSearchScope prefixes the scope of a Scala name the file neither
// declares nor imports by name: "scalasearch:<own package>|<p1>|<p2>…"
// lists the packages to look in, in order (the own package, those of
// chained package clauses, those of wildcard imports); package resolve
// takes the first declaring the name, else the own package.
const ScalaSearchScope = "scalasearch:"
