// Package php reads PHP files (.php, .phtml, .inc; HTML around <?php
// tags included) with tree-sitter. It makes the file's namespace node
// (code:module:<Namespace\Name>, defined by the file), classes,
// interfaces, traits and enums (code:class:<path>::<Name>, type_kind
// interface|trait|enum, typed and promoted properties listed in the
// fields metadata), functions (code:function:<path>::<name>) and methods
// (code:function:<path>::<Class>.<method>, constructors are __construct),
// imports edges from use statements (to the in-tree file PSR-4 maps the
// class to) and from require/include of literal paths, inherits_from
// (extends, use Trait) and implements edges, and calls with receivers
// inferred: $this, self::, static::, parent::, Cls::m(), new Cls() (a call
// of the class and of its __construct), typed parameters, promoted
// constructor parameters and typed properties, $x = new Foo() locals and
// declared return types.
//
// Names declare in the scope "php:<namespace>" (php: for the global
// namespace), shared by every file of a namespace; a class name is read
// as PHP reads it (use aliases, the file's namespace, \Fully\Qualified).
// A file with several namespace blocks declares in the first.
package php
