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

; a.f = b.g = function g () {} (a chain: express's `req.get = req.header = function header`): each
; name is a definition as its single form above is (req.get, req.header; exports.f a function,
; F.prototype.f F's method), all of one function (pipeline/definitions.py pairs the names with it)
(expression_statement
  (assignment_expression
    right: (assignment_expression))) @bound.method

; F.prototype = { f () {}, g: function () {} }: methods of F's instances (F.f, F.g), as above
((expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @receiver
      property: (property_identifier) @_proto)
    right: (object
      [(pair
         key: [(property_identifier) (string)] @name
         value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
       (method_definition name: [(property_identifier) (string)] @name body: (_) @body)] @definition.method)))
  (#eq? @_proto "prototype"))

(class_body
  (method_definition
    name: (_) @name
    body: (_) @body) @definition.method)

; export default { list () {}, add: () => {} }: the module's functions (list, add), as
; module.exports = { ... } makes them (javascript.scm)
(export_statement
  value: (object
    [(pair
       key: [(property_identifier) (string)] @name
       value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
     (method_definition name: [(property_identifier) (string)] @name body: (_) @body)] @definition.function))

; const api = { list () {}, add: () => {} } at the top of a file whose value api is (module.exports =
; api, export default api: the patterns at the end of this file): the module's functions too;
; pipeline/definitions.py keeps them only when a statement of the file makes @value its value
(program
  [(lexical_declaration (variable_declarator name: (identifier) @value value: (object
    [(pair
       key: [(property_identifier) (string)] @name
       value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
     (method_definition name: [(property_identifier) (string)] @name body: (_) @body)] @definition.function)))
   (variable_declaration (variable_declarator name: (identifier) @value value: (object
    [(pair
       key: [(property_identifier) (string)] @name
       value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
     (method_definition name: [(property_identifier) (string)] @name body: (_) @body)] @definition.function)))])

; describe('name', () => {...}), it(...), test(...), test.each(rows)('adds %i', fn): a test block, a
; function of subkind suite or test named by its title (pipeline/testblocks.py: in a test file, a
; test runner's callee only)
((expression_statement
  (call_expression
    function: [(identifier) (member_expression) (call_expression)] @_runner
    arguments: (arguments . [(string) (template_string)] . [(arrow_function) (function_expression)])) @test.call)
  (#match? @_runner "^(describe|context|suite|it|test|specify|fit|xit|xtest|fdescribe|xdescribe)\\b"))

(import_statement) @import
(export_statement source: (_)) @import
((call_expression
  function: (identifier) @_fn
  arguments: (arguments . (string))) @import
  (#eq? @_fn "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string))) @import

; module.exports = f, exports = module.exports = f, export default f: the module's value is f, a
; definition of the file (pipeline.importrefs._module_value: an ImportRef of kind "value")
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
      right: (identifier))) @import
  (#eq? @_module "module") (#eq? @_exports "exports"))
(program
  (expression_statement
    (assignment_expression
      right: (assignment_expression
        left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
        right: (identifier)))) @import
  (#eq? @_module "module") (#eq? @_exports "exports"))
(program (export_statement value: (identifier)) @import)
