// Package calloracle is the half of the compiler-oracle accuracy harnesses
// (scripts/javaaccuracy against javac, scripts/clangaccuracy against
// clang) that does not depend on the compiler: the JSON-lines shape an
// oracle prints, the mapping of an oracle's declarations to cos uids, and
// the comparison of cos's calls edges with the oracle's call sites, split
// per category and printed as Markdown.
//
// # Basics
//
// An oracle prints one JSON object a line (Read):
//
//	{"kind":"file","file":"src/a.c"}                  a file it analysed
//	{"kind":"call","site":SITE,"caller":DECL,"callee":DECL,
//	 "category":FORM,"callee_kind":KIND,"context":CTX} a resolved call site
//	{"kind":"stats","in_tree":N,...}                   counts (any keys)
//
// SITE is {"file","line","col"} (1-based), DECL {"file","line","end_line",
// "class","name","params","kind","external","decls"}: file and lines are
// the declaration's extent (for C and C++ the definition's, the body
// included), class is the owner's name inside its file with "." between
// nested names (Outer.Inner, a C++ namespace left out), kind is
// "function", "method", "constructor", "class" or "file", external is
// true for a declaration outside the sources (no file), and decls lists
// the other places it is declared (a C prototype in a header, a C++
// method declared in its class and defined in a .cc file). Paths are
// relative to the project folder, which is the folder cos indexes, so an
// oracle path is a cos path.
//
// # Mapping a declaration to a cos uid
//
// By place first, by name second, never by name alone across files:
//
//  1. Place. For the declaration's extent, then each of its decls: the
//     cos function, method or class node of that file whose [Line,
//     EndLine] overlaps the extent and whose label's last segment ("."
//     separated) is the declaration's name. A constructor also matches a
//     node named "constructor", "<init>" or "__init__" and, failing a
//     method, its class node; a class matches a class node. Of several,
//     the one starting nearest the declaration, then the smallest.
//  2. Name. The expected uid, when the graph has that node:
//     code:function:<file>::<Class>.<name> for a method,
//     code:function:<file>::<name> for a function,
//     code:class:<file>::<Class> for a class and for a constructor (cos
//     records new C() as a call of the class, as for Python and
//     TypeScript). <file> is the definition's file, then each decl's.
//  3. None. The expected uid of the definition's file, counted as "no cos
//     node": the truth edge stays, so a language cos does not extract yet
//     scores recall 0 instead of nothing.
//
// Overloads (Java, C++) are one uid: cos keeps one node per uid, so every
// overload of C.m in a file maps to code:function:<file>::C.m when cos
// names them that way, and by place to whatever node cos gives each.
//
// The caller of a site is the innermost cos function, method or class node
// of the site's file whose lines hold the site's line (code in a lambda,
// an anonymous or local class, or a C++ lambda belongs to the node cos
// has around it); with none, the oracle's caller declaration mapped as
// above, or code:file:<file> for code outside any function (a C
// initialiser). A site whose caller and callee map to the same uid is not
// an edge, and neither is cos's recursive calls edge (a self edge): a
// lambda folds into the node around it and overloads share one uid, so a
// self pair is not always recursion; both sides leave them out.
//
// # The comparison
//
// Truth edges are the set of (caller uid, callee uid) of sites whose
// callee is declared in the sources. cos's edges are its calls and
// constructs edges from a function, method, class or file node to a
// function, method or class node whose caller's file the oracle
// analysed (others are counted apart, "outside"). A cos edge in the truth
// is a true positive. One that is not is judged only when the oracle
// resolved some call on the edge's line (in the sources or outside them:
// a call of a JDK or libc function refutes an edge to an in-tree node);
// otherwise the compiler resolved nothing there (an unresolved symbol, a
// call through a function pointer) and the edge is unjudged, counted and
// listed apart. So precision is over the call sites the compiler
// resolves.
//
// Each split (category: the form of the site; callee kind; context) gives
// a truth edge every value its sites have; a false positive the values of
// the oracle's site on its line whose callee has the cos callee's name,
// else of the line's first site.
package calloracle
