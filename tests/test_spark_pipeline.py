"""The Spark pipeline API and readers: Spark DataFrames in and out, N-Triples parsed on the executors,
the exact interchange between backends, and Spark failures turned into deltalog errors."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pyspark.sql import functions as F

from deltalog.api import Reasoner
from deltalog.backends.local.backend import LocalBackend
from deltalog.backends.spark.backend import SparkBackend
from deltalog.backends.spark.errors import SparkBackendError, translated
from deltalog.backends.spark.io import read_facts_dir
from deltalog.errors import ArityError, InputError
from deltalog.spark import materialise

pytestmark = pytest.mark.spark
TC = "path(X, Y) :- edge(X, Y).\npath(X, Z) :- edge(X, Y), path(Y, Z).\n"


def test_materialise_takes_and_returns_spark_dataframes(spark):
    edges = spark.createDataFrame([(1, 2), (2, 3), (3, 4)], "src long, dst long")
    result = materialise(spark, TC, {"edge": edges})
    path = result["path"]
    assert path.schema.simpleString() == "struct<c0:bigint,c1:bigint>"
    assert sorted(tuple(r) for r in path.collect()) == [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]


def test_pipeline_values_keep_their_kinds(spark):
    rows = spark.createDataFrame([("a", 1.5), ("<http://x>", -0.0), ("7", 2.0)], "s string, v double")
    result = materialise(spark, "p(X, V) :- q(X, V), V >= 0.", {"q": rows}, typed=False)
    # a String column holds strings whatever they spell: as text cells those are quoted (docs/semantics.md)
    assert sorted(tuple(r) for r in result["p"].collect()) == [('"7"', "2.0"), ('"<http://x>"', "0.0"), ("a", "1.5")]
    typed = materialise(spark, "p(V) :- q(_, V).", {"q": rows})["p"]
    assert typed.schema.simpleString() == "struct<c0:double>"


def test_dataframe_arity_mismatch_is_a_typed_error(spark):
    wide = spark.createDataFrame([(1, 2, 3)], "a long, b long, c long")
    with pytest.raises(ArityError, match="arity 3 in the data but arity 2 in the program"):
        materialise(spark, TC, {"edge": wide})
    with pytest.raises(InputError, match="edge has arity 2"):
        Reasoner(TC, backend=SparkBackend(spark)).load("edge", wide)


NTRIPLES = r'''<http://e/a> <http://e/knows> <http://e/b> .
# a comment

<http://e/a> <http://e/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/a> <http://e/height> "1.5E0"^^<http://www.w3.org/2001/XMLSchema#double> .
_:x <http://e/name> "tab\there \"q\" \u00e9"@fr .
<http://e/b> <http://e/code> "007" .
<http://e/b> <http://e/note> "<not an iri>"^^<http://e/type> .
'''


def test_ntriples_are_parsed_on_the_executors_as_the_embedded_reader_parses_them(spark, tmp_path):
    (tmp_path / "data.nt").write_text(NTRIPLES)
    program = "t(S, P, O) :- triple(S, P, O)."
    frames = read_facts_dir(spark, str(tmp_path), arities={})
    assert set(frames) == {"triple"}
    on_spark = Reasoner(program, backend="spark")
    on_spark.load_directory(tmp_path)
    here = Reasoner(program, backend="local")
    here.load_directory(tmp_path)
    expected = here.backend.typed_rows(relation="triple")
    assert on_spark.backend.typed_rows(relation="triple") == expected
    assert (("iri", "http://e/a"), ("iri", "http://e/age"), ("int", 42)) in expected
    # a language-tagged literal keeps its tag (docs/semantics.md, RDF)
    assert (("string", "_:x"), ("iri", "http://e/name"), ("literal", '"tab\\there \\"q\\" é"@fr')) in expected


def test_rdf_predicates_split_by_property(spark, tmp_path):
    (tmp_path / "data.nt").write_text(NTRIPLES)
    frames = read_facts_dir(spark, str(tmp_path), arities={}, rdf_predicates=True)
    assert list(frames) == ["age", "code", "height", "knows", "name", "note"]   # by name, not file order
    assert frames["age"].collect()[0].asDict() == {"c0": "rhttp://e/a", "c1": "i42"}


def test_invalid_ntriples_name_the_file(spark, tmp_path):
    (tmp_path / "bad.nt").write_text("<http://e/a> <http://e/b> .\n")
    with pytest.raises(InputError, match="invalid N-Triples line") as info:
        read_facts_dir(spark, str(tmp_path), arities={})
    assert str(tmp_path / "bad.nt") in str(info.value)


def test_missing_inputs_are_input_errors_naming_the_path(spark, tmp_path):
    with pytest.raises(InputError, match="no such directory"):
        Reasoner(TC, backend="spark").load_directory(tmp_path / "nowhere")
    with pytest.raises(InputError, match="gone.parquet"):
        with translated():
            spark.read.parquet(str(tmp_path / "gone.parquet")).count()


def test_ragged_csv_rows_are_input_errors(spark, tmp_path):
    (tmp_path / "edge.csv").write_text("1,2\n3\n")
    with pytest.raises(InputError, match=r"^/\S*/edge\.csv:2:1: error: row has 1 fields, expected 2"):
        r = Reasoner(TC, backend="spark")
        r.load_directory(tmp_path)


def test_out_of_memory_gets_a_hint():
    from deltalog.backends.spark.errors import translate
    error = translate(RuntimeError("java.lang.OutOfMemoryError: Java heap space"))
    assert isinstance(error, SparkBackendError) and "driver memory" in error.render()


def test_csv_cells_are_typed_like_the_embedded_reader(spark, tmp_path):
    (tmp_path / "q.csv").write_text('1,"a,b"\n007,\n-0.0,<x>\n1e400,"say ""hi"""\n')
    on_spark = Reasoner("p(X, Y) :- q(X, Y).", backend="spark")
    on_spark.load_directory(tmp_path)
    here = Reasoner("p(X, Y) :- q(X, Y).", backend="local")
    here.load_directory(tmp_path)
    assert on_spark.backend.typed_rows(relation="q") == here.backend.typed_rows(relation="q")


EXACT = [("int", 2**63 - 1), ("int", -7), ("float", 1e16), ("float", 5e-324), ("float", 0.1),
         ("string", "42"), ("string", ""), ("string", "é\t"), ("iri", "http://x/y")]


@pytest.mark.parametrize("source,target", [("local", "spark"), ("spark", "local")])
def test_export_and_import_are_exact_both_ways(spark, source, target):
    backends = {"local": LocalBackend(), "spark": SparkBackend(spark)}
    rows = {tuple([v, EXACT[(i + 1) % len(EXACT)]]) for i, v in enumerate(EXACT)}
    program = "\n".join(f"r({_text(a)}, {_text(b)})." for a, b in rows)
    loaded = Reasoner(program, backend=backends[source])
    table = loaded.backend.export_rows(relation="r")
    assert isinstance(table, pa.Table) and table.num_rows == len(rows)
    backends[target].create_relation(relation="r", arity=2)
    assert backends[target].import_rows(relation="r", table=table, generation=0) == len(rows)
    assert backends[target].typed_rows(relation="r") == rows


def _text(value) -> str:
    kind, v = value
    if kind == "string":
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '"'
    return f"<{v}>" if kind == "iri" else repr(v)


def test_windows_deletions_and_counts_need_no_job(spark):
    from deltalog.plan import ir
    from deltalog.syntax.ast import Constant
    backend = SparkBackend(spark)
    backend.create_relation(relation="e", arity=1)
    values = lambda *xs: ir.Values(("c0",), tuple((Constant(x, "int"),) for x in xs))  # noqa: E731
    backend.insert(relation="e", plan=values(0, 1, 2, 3, 4), generation=1)
    backend.delete(relation="e", plan=values(3), generation=2)
    backend.insert(relation="e", plan=values(3, 5), generation=3)
    jobs = backend.actions
    assert backend.count(relation="e") == 6 and backend.count(relation="e", visible=1, until=2) == 5
    assert backend.count(relation="e", visible=1) == 7
    assert backend.count(relation="e", deleted=(2, 3)) == 1 and backend.count(relation="e", since=3) == 2
    assert backend.actions == jobs
    gone = backend.evaluate(plan=ir.Scan("e", (ir.Col("X"),), deleted=(2, 3)))["X"].to_list()
    before = backend.evaluate(plan=ir.Scan("e", (ir.Col("X"),), until=2, visible=1))["X"].to_list()
    assert gone == [3] and sorted(before) == [0, 1, 2, 3, 4]


def test_float_text_matches_python_repr(spark):
    from deltalog.backends.spark.expressions import tag_double
    values = [0.1 + 0.2, 1e16, 1e-05, 123456789.123, -2.5e-300, 2.0**70]
    frame = spark.createDataFrame([(v,) for v in values], "d double").select(tag_double(F.col("d")).alias("t"))
    assert [r.t for r in frame.collect()] == ["f" + repr(v) for v in values]


NULLARY = """p(1). p(2). s(a).
q :- p(X).
none :- p(X), X > 5.
r(X) :- p(X), not none.
t(X, Y) :- q, p(X), s(Y).
u :- q, not none.
"""


def test_nullary_predicates_and_cross_products_match_the_embedded_backend(spark):
    results = {}
    for backend in ("local", SparkBackend(spark)):
        reasoner = Reasoner(NULLARY, backend=backend, offload=None)
        reasoner.materialise()
        results[reasoner.backend.name] = {p: reasoner.backend.typed_rows(relation=p) for p in "q none r t u".split()}
    assert results["spark"] == results["local"]
    assert results["spark"]["u"] == {()} and results["spark"]["none"] == set()
