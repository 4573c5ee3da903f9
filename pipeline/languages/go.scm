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

(import_spec) @import
