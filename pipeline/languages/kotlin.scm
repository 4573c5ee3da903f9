; Kotlin: definitions and imports (tags-style). An object is a class; so is a named companion
; object (`Cart.Factory`); an unnamed one is no node: its members are the class's (`Cart.create`,
; as callers write it and as Java's statics are). An extension function is named by its receiver
; type (`fun List<Int>.total()`: `List.total`;
; `Map.Entry<K, V>.key()`: `Entry.key`). Properties are not nodes (nor are Java's fields).

(class_declaration
  "interface"
  name: (identifier) @name
  (class_body)? @body) @definition.interface

(class_declaration
  (modifiers (class_modifier "enum"))
  name: (identifier) @name
  (enum_class_body) @body) @definition.enum

(class_declaration
  "class"
  name: (identifier) @name
  (class_body)? @body) @definition.class

(object_declaration
  name: (identifier) @name
  (class_body)? @body) @definition.class

(companion_object
  name: (identifier) @name
  (class_body)? @body) @definition.class

(type_alias
  type: (identifier) @name) @definition.type

(function_declaration
  [(user_type (identifier) @receiver . (type_arguments)? .)
   (nullable_type (user_type (identifier) @receiver . (type_arguments)? .))]
  "."
  name: (identifier) @name
  (function_body)? @body) @definition.function

(function_declaration
  name: (identifier) @name
  (function_body)? @body) @definition.function

(secondary_constructor
  "constructor" @name
  (block)? @body) @definition.method

(import) @import
(package_header) @import
