// Command javaaccuracy compares the calls edges cos extracts from Java with
// javac's own resolution of every call, and prints precision and recall
// per category as Markdown. The comparison and the mapping of declarations
// to cos uids are scripts/internal/calloracle's (its doc.go); this file
// says what the oracle reports.
//
//	go run ./scripts/javaaccuracy [-v] [-top 10] [-json FILE] [-project gson]
//	go run ./scripts/javaaccuracy [-v] -dir DIR [-src a/src/main/java,b/src]
//
// Default project: google/gson at 9835b6f90192f79cdf5300c528fc6212455fb6c1,
// the folder gson/src/main/java, fetched with git into
// $COS_ORACLE_CACHE/src/gson (calloracle.Fetch). cos indexes the whole
// checkout; edges from files the oracle did not compile are left out.
//
// # The oracle
//
// oracle/CallOracle.java, embedded in the command, compiled with javac
// into a temporary folder and run with java: JavacTask.parse and analyze
// over every .java file of the source folders (module-info.java and
// package-info.java left out), -sourcepath the source folders, no
// classpath, -proc:none and -XDshould-stop.ifError=FLOW so that every
// class is attributed although symbols of missing libraries do not
// resolve. A TreePathScanner visits each MethodInvocationTree
// (Trees.getElement of its method select) and NewClassTree (its
// constructor). A call javac did not resolve (an error type) is counted
// "unresolved"; one whose symbol has no tree in the sources (Trees.getPath
// is null: the JDK, a library) is printed "external" and only counted.
// Trees javac made itself — the implicit super() of a constructor, the
// creation of an enum constant — are left out ("synthetic"): the source
// at their position is not the call.
//
// Declarations: a method or constructor's extent is its tree's (from its
// modifiers and annotations to its closing brace); a default constructor
// (Elements.Origin MANDATED) is its class, kind "class"; the class name is
// the nesting path inside the file (Outer.Inner; anonymous classes have
// none). new T() { ... } calls T's constructor of the same arity, or T
// itself when T is an interface. The caller is the innermost method,
// constructor or class (for a field initialiser or an initialiser block)
// around the site.
//
// # Categories
//
// The form of the site:
//
//   - static: a static method, bare or qualified (m(), C.m());
//   - this: an instance method called bare or on this / Outer.this;
//   - super: on super or I.super;
//   - ctor_chain: this(...) or super(...) in a constructor;
//   - field: on a field (f.m(), a.f.m(), System.out.println());
//   - local: on a local variable or parameter;
//   - chained: on any other receiver (a call's result, new C().m(), a
//     cast, an array element);
//   - constructor: new C(...).
//
// The callee kind: method, static method, interface/abstract method (an
// abstract or interface method without body), default method, constructor,
// class (a default constructor, or the interface of an anonymous class).
// The context: member (in a method of a named class), lambda, or
// anonymous/local class.
//
// # Caveats
//
// A call on a receiver of a library type javac cannot see (no classpath)
// is unresolved and in neither the truth nor the scores; gson needs
// only the errorprone annotations, so that is a handful of calls. The site
// of a.b().c() is the name c; of new C() the keyword new. A method
// reference (C::m) is not a call.
package main
