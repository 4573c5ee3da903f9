; TypeScript and TSX (one query for both grammars): definitions and imports (tags-style).

(class_declaration
  name: (_) @name
  body: (_) @body) @definition.class

(abstract_class_declaration
  name: (_) @name
  body: (_) @body) @definition.class

(interface_declaration
  name: (_) @name
  body: (_) @body) @definition.interface

(enum_declaration
  name: (_) @name
  body: (_) @body) @definition.enum

(function_declaration
  name: (identifier) @name
  body: (_) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (_) @body) @definition.function

; overload / ambient declarations without a body
(function_signature
  name: (identifier) @name) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function)

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function)

; obj.f = function f () {} / obj.f = () => {} (an object's method, qualified by it: res.json)
((expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @receiver property: (property_identifier) @name)
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.method
  (#not-match? @receiver "^(module|exports)$"))

; F.prototype.f = function () {}: a method of F's instances (F.f)
((expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression object: (identifier) @receiver property: (property_identifier) @_proto)
      property: (property_identifier) @name)
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.method
  (#eq? @_proto "prototype"))

(class_body
  (method_definition
    name: (_) @name
    body: (_) @body) @definition.method)

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

(import_statement) @import
(export_statement source: (_)) @import
((call_expression
  function: (identifier) @_fn
  arguments: (arguments . (string))) @import
  (#eq? @_fn "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string))) @import
(import_require_clause) @import
