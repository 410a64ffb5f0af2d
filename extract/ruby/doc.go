// Package ruby reads Ruby files (.rb, .rake, .ru, Rakefile) with
// tree-sitter: modules and classes (code:class:<path>::<A::B>, a module
// with type_kind module; attr_accessor, attr_reader and attr_writer names
// in the fields metadata), methods (code:function:<path>::<A::B>.<m>,
// def self.m and class << self included, metadata singleton), top-level
// functions, imports edges from require and require_relative to in-tree
// files, inherits_from edges (< Base, include, extend, prepend) and calls
// with receivers inferred: self.m, a bare m inside a class (its own
// methods, then included modules, then the superclass), Cls.new (a call
// of the class and of its initialize), Cls.m, super, locals assigned
// from Cls.new and @x assigned from Cls.new.
//
// Every Ruby file declares in the one scope "rb:" (constants are global);
// a constant read inside modules A::B is looked up as A::B::C, A::C, then
// C (lang.RubyNestScope). A class reopened in several files is one name
// with one node per file; its bases are those of the first file (by
// path) that names them. Sharing one scope means that a change to any
// Ruby file's declarations re-extracts every Ruby file of the tree on
// the next index (as a Go package's files are).
package ruby
