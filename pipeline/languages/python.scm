; Python: definitions and imports (tags-style).
; Captures: @definition.<kind> (the definition node), @name, @import (an import statement).
; Nesting (class -> method, defs hidden inside function bodies) is decided by pipeline/parse.py.

(class_definition
  name: (identifier) @name
  body: (_) @body) @definition.class

(function_definition
  name: (identifier) @name
  body: (_) @body) @definition.function

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; to_cents = lambda x: ... (also annotated, and a class attribute `key = lambda self: ...`): a
; function of subkind `lambda` named by the name it is bound to (a method in a class)
(expression_statement
  (assignment
    left: (identifier) @name
    right: (lambda body: (_) @body))) @definition.lambda
