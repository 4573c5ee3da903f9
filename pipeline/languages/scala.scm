; Scala (2 and 3): definitions and imports (tags-style). An object is a class; a companion object
; (one beside a class or trait of its name) merges into that type's node, as a Rust impl block
; does: its members are the type's (`Cart.apply`, as callers write `Cart(...)`), its span its own.
; A Scala 3 extension method is named by its receiver's type (`extension (s: String) def shout`:
; `String.shout`). Vals and vars are not nodes (nor are Java's fields).

(class_definition
  name: (identifier) @name) @definition.class

(trait_definition
  name: (identifier) @name) @definition.trait

(enum_definition
  name: (identifier) @name) @definition.enum

((class_definition name: (identifier) @_type)
 (object_definition name: (identifier) @name) @definition.impl
 (#eq? @_type @name))

((trait_definition name: (identifier) @_type)
 (object_definition name: (identifier) @name) @definition.impl
 (#eq? @_type @name))

((object_definition name: (identifier) @name) @definition.impl
 (class_definition name: (identifier) @_type)
 (#eq? @_type @name))

(object_definition
  name: (identifier) @name) @definition.class

(package_object
  name: (identifier) @name) @definition.class

(type_definition
  name: (type_identifier) @name) @definition.type

; an extension's methods are named by their receiver's type, as a namespace names its members
(extension_definition
  parameters: (parameters . (parameter type: [(type_identifier) @name
                                              (generic_type type: (type_identifier) @name)]))) @scope.namespace

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(import_declaration) @import
(package_clause) @import
