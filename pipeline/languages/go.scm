; Go: definitions and imports (tags-style).
; Methods are qualified by their receiver type (@receiver): func (s *Server) Start() -> Server.Start.

(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (struct_type (field_declaration_list) @body)) @definition.struct)

(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (interface_type "{" @body)) @definition.interface)

; any other named type (`type Directive int`, `type Args func(...) error`, `type A = B`): a class of
; subkind type, so the methods declared on it hang under it
(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: [(type_identifier) (qualified_type) (generic_type) (pointer_type) (function_type) (map_type)
           (slice_type) (array_type) (channel_type) (parenthesized_type)] @body) @definition.type)

(type_declaration
  (type_alias
    name: (type_identifier) @name
    type: (_) @body) @definition.type)

(function_declaration
  name: (identifier) @name
  body: (_) @body) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name
  body: (_) @body) @definition.method

; var Handler = func(x int) int {...}: a package-level function variable is a function (as JS
; `const f = () => {}` is); one inside a function body is that function's code
(var_declaration
  (var_spec
    name: (identifier) @name
    value: (expression_list . (func_literal body: (_) @body) .))) @definition.function

(var_declaration
  (var_spec_list
    (var_spec
      name: (identifier) @name
      value: (expression_list . (func_literal body: (_) @body) .)) @definition.function))

; var a, b = func() {...}, func() {...}: each name a func literal is bound to, a function as above
; (pipeline/definitions.py pairs the names with the values, element by element)
(var_spec
  name: (identifier) name: (identifier)
  value: (expression_list (func_literal))) @bound.func

(import_spec) @import
