; C++: definitions and includes (tags-style).

(class_specifier
  name: (_) @name
  body: (_) @body) @definition.class

(struct_specifier
  name: (_) @name
  body: (_) @body) @definition.struct

(union_specifier
  name: (_) @name
  body: (_) @body) @definition.union

(enum_specifier
  name: (_) @name
  body: (_) @body) @definition.enum

(type_definition
  type: (struct_specifier !name body: (_) @body)
  declarator: (type_identifier) @name) @definition.struct

(function_definition
  declarator: (_) @declarator
  body: (_) @body) @definition.function

; prototypes at namespace level and member declarations in class bodies (declaration only)
(declaration
  declarator: [(function_declarator) (pointer_declarator) (reference_declarator)] @declarator) @definition.function

; a field_declaration only stands in a class body, also inside an #if / #ifdef / #else there
(field_declaration
  declarator: [(function_declarator) (pointer_declarator) (reference_declarator)] @declarator) @definition.method

(field_declaration_list
  (declaration
    declarator: (function_declarator) @declarator) @definition.method)

(namespace_definition
  name: (_) @name
  body: (_) @body) @scope.namespace

(preproc_include) @import
