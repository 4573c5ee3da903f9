; Java: definitions and imports (tags-style).

(class_declaration
  name: (identifier) @name
  body: (_) @body) @definition.class

(interface_declaration
  name: (identifier) @name
  body: (_) @body) @definition.interface

(annotation_type_declaration
  name: (identifier) @name
  body: (_) @body) @definition.interface

(enum_declaration
  name: (identifier) @name
  body: (_) @body) @definition.enum

(record_declaration
  name: (identifier) @name
  body: (_) @body) @definition.record

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (_) @body) @definition.method

(compact_constructor_declaration
  name: (identifier) @name
  body: (_) @body) @definition.method

(import_declaration) @import

; an anonymous class a field holds (`static final X F = new X() {...}`, `new X() {...}.nullSafe()`): a
; class named by the field, so its methods are nodes (one inside a method stays that method's code)
(field_declaration
  declarator: (variable_declarator
    name: (identifier) @name
    value: (object_creation_expression (class_body) @body) @definition.anonymous))

(field_declaration
  declarator: (variable_declarator
    name: (identifier) @name
    value: (method_invocation
      object: (object_creation_expression (class_body) @body) @definition.anonymous)))

(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name
    value: (object_creation_expression (class_body) @body) @definition.anonymous))
