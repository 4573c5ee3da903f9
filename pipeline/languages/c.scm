; C: definitions and includes (tags-style).
; Function names sit inside declarator chains (pointers, parentheses); pipeline/parse.py follows
; the @declarator capture down to the function's identifier.

(struct_specifier
  name: (type_identifier) @name
  body: (_) @body) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (_) @body) @definition.union

(enum_specifier
  name: (type_identifier) @name
  body: (_) @body) @definition.enum

; typedef struct { ... } name_t;
(type_definition
  type: (struct_specifier !name body: (_) @body)
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier !name body: (_) @body)
  declarator: (type_identifier) @name) @definition.union

(type_definition
  type: (enum_specifier !name body: (_) @body)
  declarator: (type_identifier) @name) @definition.enum

(function_definition
  declarator: (_) @declarator
  body: (_) @body) @definition.function

; prototypes (declaration only)
(declaration
  declarator: [(function_declarator) (pointer_declarator)] @declarator) @definition.function

(preproc_include) @import
