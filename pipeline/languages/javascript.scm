; JavaScript (and JSX): definitions and imports (tags-style).

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

; exports.f = function () {} / module.exports.f = () => {}
((expression_statement
  (assignment_expression
    left: (member_expression object: (_) @obj property: (property_identifier) @name)
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function
  (#match? @obj "^(module\\.)?exports$"))

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

; class fields holding functions: handle = (e) => {}
(class_body
  (field_definition
    property: (_) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method)

(import_statement) @import
(export_statement source: (_)) @import
((call_expression
  function: (identifier) @_fn
  arguments: (arguments . (string))) @import
  (#eq? @_fn "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string))) @import
