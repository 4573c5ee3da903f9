; JavaScript (and JSX): definitions and imports (tags-style).

; exports.f = function () {} / module.exports.f = () => {}
((expression_statement
  (assignment_expression
    left: (member_expression object: (_) @obj property: (property_identifier) @name)
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function
  (#match? @obj "^(module\\.)?exports$"))

; class fields holding functions: handle = (e) => {}
(class_body
  (field_definition
    property: (_) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method)
