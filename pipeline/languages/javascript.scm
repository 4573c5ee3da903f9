; JavaScript (and JSX): definitions and imports (tags-style).

; exports.f = function () {} / module.exports.f = () => {}
((expression_statement
  (assignment_expression
    left: (member_expression object: (_) @obj property: (property_identifier) @name)
    right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function
  (#match? @obj "^(module\\.)?exports$"))

; module.exports = function renderFile () {} (and `exports = module.exports = ...`): the module is
; that function, named by its own name (an anonymous one names nothing and stays the file's code)
((expression_statement
  (assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: (function_expression name: (identifier) @name body: (_) @body))) @definition.function
  (#eq? @_module "module") (#eq? @_exports "exports"))

((expression_statement
  (assignment_expression
    right: (assignment_expression
      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
      right: (function_expression name: (identifier) @name body: (_) @body)))) @definition.function
  (#eq? @_module "module") (#eq? @_exports "exports"))

; module.exports = { parse: function () {}, format () {} }: the module's functions (parse, format),
; as exports.parse = function () {} is
((assignment_expression
    left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    right: (object
      [(pair
         key: [(property_identifier) (string)] @name
         value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
       (method_definition name: [(property_identifier) (string)] @name body: (_) @body)] @definition.function))
  (#eq? @_module "module") (#eq? @_exports "exports"))

; class fields holding functions: handle = (e) => {}
(class_body
  (field_definition
    property: (_) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method)
