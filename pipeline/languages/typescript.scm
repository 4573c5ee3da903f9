; TypeScript and TSX (one query for both grammars): definitions and imports (tags-style).

(abstract_class_declaration
  name: (_) @name
  body: (_) @body) @definition.class

(interface_declaration
  name: (_) @name
  body: (_) @body) @definition.interface

(enum_declaration
  name: (_) @name
  body: (_) @body) @definition.enum

; type X = ...: a class of subkind type (its declaration is its api)
(type_alias_declaration
  name: (type_identifier) @name
  value: (_) @body) @definition.type

; overload / ambient declarations without a body
(function_signature
  name: (identifier) @name) @definition.function

(class_body
  (method_signature
    name: (_) @name) @definition.method)

(class_body
  (abstract_method_signature
    name: (_) @name) @definition.method)

(class_body
  (public_field_definition
    name: (_) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method)

(interface_body
  (method_signature
    name: (_) @name) @definition.method)

; namespaces only prefix qualified names; they are not nodes
(internal_module
  name: (_) @name
  body: (_) @body) @scope.namespace

(module
  name: (_) @name
  body: (_) @body) @scope.namespace

(import_require_clause) @import
