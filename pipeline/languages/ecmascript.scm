; JavaScript and TypeScript (both grammars name these nodes alike): the definitions the two
; languages share. Read before each language's own file (pipeline/languages/__init__.py).

(class_declaration
  name: (_) @name
  body: (_) @body) @definition.class

(function_declaration
  name: (identifier) @name
  body: (_) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (_) @body) @definition.function

; const f = () => {} / const f = function () {}
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

(import_statement) @import
(export_statement source: (_)) @import
((call_expression
  function: (identifier) @_fn
  arguments: (arguments . (string))) @import
  (#eq? @_fn "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string))) @import
