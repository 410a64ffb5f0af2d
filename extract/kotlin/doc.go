// Package kotlin reads Kotlin files (.kt, .kts; Gradle's build.gradle.kts
// and settings.gradle.kts are the manifest extractor's) with tree-sitter:
// the package (scope "kt:<package>"), classes (data, sealed, enum, value,
// annotation classes; metadata type_kind and modifiers), interfaces,
// objects and companion objects (code:class:<path>::<Name>, nested ones
// <Outer>.<Inner>, a companion without a name <Outer>.Companion), member
// functions (code:function:<path>::<Class>.<f>, kind method, contained by
// their class; overloads are one node, with the lines of the first),
// top-level functions (code:function:<path>::<f>, kind function) and
// extension functions, named after their receiver type
// (code:function:<path>::<T>.<f>, metadata receiver) so that x.f() on a
// receiver of type T resolves to them when they are declared in T's
// package. Properties are no nodes: a class lists its own and its
// primary constructor's val/var parameters (metadata fields), the file
// node its top-level ones (metadata properties), and their declared or
// initialiser types type receivers.
//
// A constructor is its class: T(…) of a capitalised name, a superclass's
// constructor invocation in the supertypes (class A : B()) and a
// secondary constructor's super(…) call the class node; a secondary
// constructor's body, init blocks and property initialisers call from it.
// Supertypes: a constructor invocation is the superclass (inherits_from),
// a bare type an interface (implements), unless the file declares it as a
// class; an interface's supertypes are inherits_from. A companion's
// members are found through its class (Outer.f()).
//
// Imports become references that package resolve turns into imports edges
// to the in-tree file declaring the imported class, object or function
// (Kotlin ties neither packages to folders nor classes to files), and,
// for import p.*, to the folders of p's files.
//
// Receivers are typed without a compiler, by the facts package resolve
// evaluates: parameters, locals (declared, or from the initialiser: T(…),
// calls with declared or expression-bodied returns), properties of the
// class, of its outer classes and inherited ones, constructor properties,
// this, this@Outer, super, super<T>, an extension's receiver, Obj.f(),
// Outer.Nested.f(), enum entries, x as T, x!!, apply/also. An unqualified
// f() goes to the innermost enclosing class (or its companion) declaring
// f in the file, else a top-level function of the file or an import,
// else — as alternatives tried in order — a member of this (the bases,
// an extension's receiver), a function of the file's package, of a
// star-imported package. Lambda parameters without a type, it,
// destructured variables and type parameters are unknown: such a call is
// a "*.f" stub, never a guess. Type names resolve through type
// parameters, nested and enclosing classes, the file's classes, imports,
// a file <Name>.kt of a star-imported package under the same source root,
// the default imports (kotlin.*, java.lang.*), and otherwise the file's
// own package. Calls inside lambdas, object literals, local classes and
// local functions belong to the enclosing function.
package kotlin
