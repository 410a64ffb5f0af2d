// Package cfamily is the tree-sitter extraction shared by the C and C++
// extractors (packages extract/c and extract/cpp): it parses a file with
// the C or the C++ grammar and makes its file, function, method and class
// nodes, its include edges and the references and facts package resolve
// turns into calls and inherits_from edges.
//
// # Names
//
// C and C++ share one linkage namespace, so every file declares its names
// in one scope, "c:" (Scope). Namespaces are left out of names and uids
// (they are kept as node metadata "namespace"); nested classes are named by
// their own name. So:
//
//	int f(void) { … } in a.c                 code:function:a.c::f
//	struct S { … }; union U; enum E; class C  code:class:<path>::S (type_kind)
//	typedef struct { … } T;                  code:class:<path>::T
//	typedef int (*cb)(int);                  code:class:<path>::cb (type_kind typedef)
//	void C::m() { … } in c.cc                code:function:c.cc::C.m (method)
//	C::C() { … }, C::~C() { … }              code:function:c.cc::C.C, C.~C
//	in-class  int m() { return 1; }          code:function:<header>::C.m
//	virtual void m() = 0;                    code:function:<header>::C.m (pure)
//
// A function or method is one node, in the file that defines it (its
// body): a prototype in a header makes no node, so a call lands on the
// definition. A pure virtual method, which has no definition, is a node
// at its declaration. A method is contained by its class, also when it is
// defined in another file than the class (resolve finds the class in the
// scope, as for a call). A static function, or one in an anonymous
// namespace, of a .c or .cc file is file-local: it is not declared in the
// scope and only calls in its file reach it. Overloads are one node.
// Fields make no node; their types are facts for receivers.
//
// # Includes
//
// #include "x.h" and <x.h> become imports edges to the in-tree file found
// first in: the including file's folder, the in-tree folders of the
// -I/-iquote/-isystem flags a compile_commands.json (at the root, else in
// build/) gives the file — any entry's for a header it does not compile —
// (IncludePaths, read once per run into lang.Env.CIncludePaths), the
// tree's root, then every folder of the tree named "include" (shortest
// path first). An include found nowhere makes no edge (system and outside
// headers). A database that changes alone does not re-extract the sources.
// The database itself gets config nodes as any JSON file does, and a
// CMakeLists.txt one config node per project() and target (ExtractCMake).
//
// # Macros the grammar cannot read
//
// tree-sitter does not expand macros. Before parsing, an export macro
// between class/struct and the name (class LEVELDB_EXPORT Status), an
// annotation macro after a declarator (GUARDED_BY(mu_)), and a
// conditional directive inside a constructor's initialiser list are
// blanked with spaces (lines and columns kept); declarations inside an
// ERROR node are still read.
//
// # Calls
//
// f() goes to f defined in the same file, else to the f declared in the
// scope (a stub code:external:f when none). A call of a function-like
// macro goes to the functions its body calls, up to four of them, nested
// macros followed through their first call. Member calls x.m(), p->m()
// are resolved from the declared type of x (parameter, local variable —
// auto from its initialiser —, global, field of this class), this->m()
// and unqualified m() in a method from the class and then its bases,
// Base::m() from Base, new T(…), T x(…) and base initialisers to T's
// constructor (T.T) or to the class T when it declares none. The member
// is found on the class or, depth first, its bases, so a call through a
// base pointer lands on the base's method node (a virtual call). An
// unknown receiver leaves a "*.m" stub. Calls through function pointers
// are not calls.
package cfamily
