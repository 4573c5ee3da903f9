; Rust: definitions and imports (tags-style).
; impl blocks are scopes named after their type: their methods are qualified as Type.method and
; attach to the type's node when the type is defined in the same file (else each impl block is a node;
; a blanket `impl<E> Trait for E` is named by its trait: pipeline/definitions.py).

(struct_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name
  body: (_) @body) @definition.enum

(union_item
  name: (type_identifier) @name
  body: (_) @body) @definition.union

(trait_item
  name: (type_identifier) @name
  body: (_) @body) @definition.trait

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]
  body: (_) @body) @definition.impl

(function_item
  name: (identifier) @name
  body: (_) @body) @definition.function

(declaration_list
  (function_signature_item
    name: (identifier) @name) @definition.method)

; macro_rules! name { ... }: a function of subkind macro (its delimiter stands for the body: the
; signature is `macro_rules! name`)
(macro_definition
  name: (identifier) @name
  ["{" "(" "["] @body) @definition.macro

; name!(ident, ...) at a file's top or in a mod: a test a macro defines (ripgrep's rgtest!(r1159, |dir,
; cmd| {...})), a function of subkind test (pipeline/testblocks.py: in a test file or a #[cfg(test)] mod)
(source_file (expression_statement (macro_invocation (token_tree . (identifier))) @test.macro))
(declaration_list (macro_invocation (token_tree . (identifier))) @test.macro)

(mod_item
  name: (identifier) @name
  body: (_) @body) @scope.namespace

(mod_item
  name: (identifier)
  !body) @import

(use_declaration) @import
(extern_crate_declaration) @import
