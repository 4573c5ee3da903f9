"""C++ structure around the preprocessor, third pass: a conditional group (``#if`` ... ``#endif``)
in a class body keeps its members in the class, one the grammar cannot hold (inside a
constructor's initialiser list, around an ``extern "C" {`` another group closes, alternatives of
one function header) no longer swallows the rest of the file; a macro statement in a class
(``FRIEND_TEST(A, B);``) is no member; an annotation after a macro-typed member names no node."""

from __future__ import annotations

from pipeline import languages
from pipeline.parse import definition_spans, parse_file


def parse(code: str, path: str = "a.cc") -> tuple[list[tuple[str, str, int, int, str]], dict]:
    """(kind, qualname, start line, end line, parent's qualname) per definition, and the nodes by
    qualname; the cheap span view used for symbol history must agree."""
    pf = parse_file("r", path, code.encode())
    quals = {n["id"]: n["qualname"] for n in pf.nodes}
    got = [(n["kind"], n["qualname"], n["start_line"], n["end_line"], quals.get(n["parent_id"], "<dir>") or "<file>")
           for n in pf.nodes[1:]]
    assert [(q, k) for _, _, q, k in definition_spans(path, code.encode())] == [(q, k) for k, q, *_ in got]
    return got, {"pf": pf, "by_qual": {n["qualname"]: n for n in pf.nodes[1:]}}


MEMBERS_IN_IF = (
    "class Env {\n"
    " public:\n"
    "  void Schedule();\n"
    "#if defined(_WIN32)\n"                  # 4
    "  void WinOnly();\n"
    "  virtual HANDLE* Handle();\n"
    "#else\n"
    "  void PosixOnly();\n"
    "#endif\n"
    "  void StartThread();\n"
    "};\n"
    "void Top();\n"                           # 12
)


def test_members_inside_an_if_in_a_class_body_are_members_of_the_class():
    got, p = parse(MEMBERS_IN_IF)
    assert got == [
        ("class", "Env", 1, 11, "<file>"),
        ("method", "Env.Schedule", 3, 3, "Env"), ("method", "Env.WinOnly", 5, 5, "Env"),   # were missing
        ("method", "Env.Handle", 6, 6, "Env"), ("method", "Env.PosixOnly", 8, 8, "Env"),
        ("method", "Env.StartThread", 10, 10, "Env"), ("function", "Top", 12, 12, "<file>")]
    assert not p["pf"].warnings


# leveldb util/env_posix.cc (cut down): an #if inside Limiter's constructor's initialiser list
LIMITER = (
    "namespace leveldb {\n"
    "namespace {\n"
    "class Limiter {\n"
    " public:\n"
    "  // Limit maximum number of resources to |max_acquires|.\n"
    "  Limiter(int max_acquires)\n"
    "      :\n"
    "#if !defined(NDEBUG)\n"
    "        max_acquires_(max_acquires),\n"
    "#endif  // !defined(NDEBUG)\n"
    "        acquires_allowed_(max_acquires) {\n"
    "    assert(max_acquires >= 0);\n"
    "  }\n"
    "\n"
    "  bool Acquire() { return acquires_allowed_ > 0; }\n"
    "\n"
    " private:\n"
    "#if !defined(NDEBUG)\n"
    "  // Catches an excessive number of Release() calls.\n"
    "  const int max_acquires_;\n"
    "#endif  // !defined(NDEBUG)\n"
    "  std::atomic<int> acquires_allowed_;\n"
    "};\n"
    "// Implements sequential read access in a file using read().\n"
    "//\n"
    "// Instances of this class are thread-friendly but not thread-safe, as required\n"
    "// by the SequentialFile API.\n"
    "class PosixSequentialFile final : public SequentialFile {\n"
    " public:\n"
    "  PosixSequentialFile(std::string filename, int fd)\n"
    "      : fd_(fd), filename_(std::move(filename)) {}\n"
    "  ~PosixSequentialFile() override { close(fd_); }\n"
    "\n"
    "  Status Read(size_t n, Slice* result, char* scratch) override {\n"
    "    Status status;\n"
    "    while (true) {\n"
    "      ::ssize_t read_size = ::read(fd_, scratch, n);\n"
    "      if (read_size < 0) {  // Read error.\n"
    "        if (errno == EINTR) {\n"
    "          continue;  // Retry\n"
    "        }\n"
    "        status = PosixError(filename_, errno);\n"
    "        break;\n"
    "      }\n"
    "      *result = Slice(scratch, read_size);\n"
    "      break;\n"
    "    }\n"
    "    return status;\n"
    "  }\n"
    "\n"
    "  Status Skip(uint64_t n) override {\n"
    "    if (::lseek(fd_, n, SEEK_CUR) == static_cast<off_t>(-1)) {\n"
    "      return PosixError(filename_, errno);\n"
    "    }\n"
    "    return Status::OK();\n"
    "  }\n"
    "\n"
    " private:\n"
    "  const int fd_;\n"
    "  const std::string filename_;\n"
    "};\n"
    "}  // namespace\n"
    "int MaxMmaps() { return 1000; }\n"
    "}  // namespace leveldb\n"
)


def test_an_if_in_an_initialiser_list_keeps_the_constructor_and_the_rest_of_the_file_top_level():
    got, p = parse(LIMITER, "util/env_posix.cc")
    assert got == [
        ("class", "leveldb.Limiter", 3, 23, "<file>"),                      # was lines 3-64
        ("method", "leveldb.Limiter.Limiter", 6, 13, "leveldb.Limiter"),     # was missing
        ("method", "leveldb.Limiter.Acquire", 15, 15, "leveldb.Limiter"),
        # were Limiter.PosixSequentialFile ... and the method Limiter.MaxMmaps: the rest of the
        # file read inside Limiter, its namespace lost
        ("class", "leveldb.PosixSequentialFile", 28, 61, "<file>"),
        ("method", "leveldb.PosixSequentialFile.PosixSequentialFile", 30, 31, "leveldb.PosixSequentialFile"),
        ("method", "leveldb.PosixSequentialFile.~PosixSequentialFile", 32, 32, "leveldb.PosixSequentialFile"),
        ("method", "leveldb.PosixSequentialFile.Read", 34, 49, "leveldb.PosixSequentialFile"),
        ("method", "leveldb.PosixSequentialFile.Skip", 51, 56, "leveldb.PosixSequentialFile"),
        ("function", "leveldb.MaxMmaps", 63, 63, "<file>")]
    assert not p["pf"].warnings                                   # was syntax_error
    ctor = p["by_qual"]["leveldb.Limiter.Limiter"]                # the text is the source's, #if and all
    assert "#if !defined(NDEBUG)\n        max_acquires_(max_acquires),\n#endif" in ctor["full"]


SPLIT = (
    'extern "C" {\n'                                    # the brace opens outside the groups
    "#ifdef _WIN32\n"
    "Status Open(HANDLE h) {\n"                         # 3: alternatives of one function header
    "#elif defined(__Fuchsia__)\n"
    "Status Open(zx_handle_t h) {\n"
    "#else\n"
    "Status Open(int fd) {\n"
    "#endif\n"
    "  return Read(fd);\n"
    "}\n"                                               # 10
    "}\n"
    "#ifdef ESP8266\n"                                  # a brace one group opens and another closes
    'extern "C" {\n'
    "#endif\n"
    "void setup() { Init(); }\n"                        # 15
    "#ifdef ESP8266\n"
    "}\n"
    "#endif\n"
    "#if 0\n"
    "int Old(int a,\n"
    "#else\n"
    "int New(int a,\n"                                  # 22: `#if 0` is the branch no build takes
    "#endif\n"
    "        int b) { return a + b; }\n"
    "int main() { return 0; }\n"                        # 25
)


def test_a_group_the_grammar_cannot_hold_is_preprocessed_once_and_the_file_reads_to_its_end():
    got, p = parse(SPLIT)
    assert got == [
        ("function", "Open", 3, 10, "<file>"),          # from its first header, every alternative in it
        ("function", "setup", 15, 15, "<file>"),
        ("function", "New", 22, 24, "<file>"),
        ("function", "main", 25, 25, "<file>")]
    assert not p["pf"].warnings
    assert p["by_qual"]["Open"]["signature"] == "Status Open(HANDLE h)"


def test_groups_the_grammar_reads_are_left_as_they_are():
    """A conditional group holding whole definitions, even ones with an error of their own, is the
    grammar's: each branch's definitions stay nodes, nothing is parsed twice for a clean file."""
    code = ("#ifdef _WIN32\nint Sync(HANDLE h) { return 0; }\n#else\nint Sync(int fd) { return 0; }\n#endif\n"
            '#if defined(A)\nMATCHER(IsOK, "") { return arg.ok(); }\nint Mine() { return 0; }\n'
            "#else\nint Other() { return 1; }\n#endif\n"
            "int After() { return 2; }\n")
    got, p = parse(code)
    assert [q for _, q, *_ in got] == ["Sync", "Sync#2", "Mine", "Other", "After"]
    assert p["pf"].warnings == ["syntax_error"]                     # MATCHER's, left as it is
    clean = MEMBERS_IN_IF.encode()
    assert str(languages.parse_tree("cpp", clean).root_node) == str(languages.parser("cpp").parse(clean).root_node)


FRIENDS = (
    "DECLARE_bool(verbose);\n"
    "class DBTest {\n"
    " public:\n"
    "  void A();\n"
    "  FRIEND_TEST(DBTest, Empty);\n"               # 5
    "  FRIEND_TEST_ALL_PREFIXES(DBTest, Full);\n"
    "  void B();\n"
    "#ifdef TESTING\n"
    "  FRIEND_TEST(DBTest, Debug);\n"
    "  void D();\n"
    "#endif\n"
    " private:\n"
    "  DISALLOW_COPY_AND_ASSIGN(DBTest);\n"
    "  virtual ~DBTest();\n"
    "  int x_;\n"
    "};\n"                                          # 16
    "class RGB {\n"
    "  RGB();\n"                                    # an ALL_CAPS class's own constructors stay
    "  RGB(Color);\n"
    "};\n"
    "void Top();\n"                                 # 21
)


def test_a_macro_statement_in_a_class_is_no_member_and_the_others_stay():
    got, _ = parse(FRIENDS)
    assert got == [
        ("class", "DBTest", 2, 16, "<file>"),
        ("method", "DBTest.A", 4, 4, "DBTest"), ("method", "DBTest.B", 7, 7, "DBTest"),
        ("method", "DBTest.D", 10, 10, "DBTest"), ("method", "DBTest.~DBTest", 14, 14, "DBTest"),
        ("class", "RGB", 17, 20, "<file>"),
        ("method", "RGB.RGB", 18, 18, "RGB"), ("method", "RGB.RGB#2", 19, 19, "RGB"),
        ("function", "Top", 21, 21, "<file>")]


def test_an_annotation_after_a_macro_typed_member_names_no_node():
    code = ("class Cache {\n private:\n  port::Mutex mu_;\n  int n_ GUARDED_BY(mu_);\n"
            "  MACRO_TYPE(x) y_ GUARDED_BY(mu_);\n"            # 5: was a method Cache.GUARDED_BY
            "  STACK_OF(X509) *certs_ GUARDED_BY(mu_);\n"
            "  void B();\n};\n"
            "MACRO_TYPE(x) g_ GUARDED_BY(mu_);\n"
            "int a = f(x)\n"                                   # a statement lacking its `;`, then
            "Foo BAR(1);\n"                                    # a variable on the next line: as written
            "void Top();\n")
    got, _ = parse(code)
    assert got == [("class", "Cache", 1, 8, "<file>"), ("method", "Cache.B", 7, 7, "Cache"),
                   ("function", "Top", 12, 12, "<file>")]
