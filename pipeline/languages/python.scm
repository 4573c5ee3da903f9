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

; a = b = lambda x: ... (a chain) and a, b = f, lambda y: ... / (a, b) = (...) (a tuple or list,
; element by element), and a lambda in parentheses (f = (lambda x: ...), as black wraps a long one,
; in any of these forms): each name bound to a lambda is a function as above, one per name
; (pipeline/definitions.py pairs the names with the values; the statement is each one's span)
(expression_statement
  (assignment
    left: (identifier)
    right: (parenthesized_expression [(lambda) (parenthesized_expression)]))) @bound.lambda

(expression_statement
  (assignment right: (assignment))) @bound.lambda

(expression_statement
  (assignment
    left: [(pattern_list) (tuple_pattern) (list_pattern)]
    right: [(expression_list) (tuple) (list)])) @bound.lambda
