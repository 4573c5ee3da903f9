"""The generated gRPC code in serving/_gen matches proto/stratum/v1/stratum.proto."""

import dataclasses

from serving import protogen
from serving._gen import stratum_pb2 as pb
from stratum.envelope import Budget, Envelope, Eviction, Item


def test_generated_code_is_current():
    stale = protogen.stale_files()
    assert stale == [], f"serving/_gen is out of date with the .proto ({stale}); run `make proto`"


def test_generated_imports_do_not_collide_with_the_stratum_package():
    grpc_module = (protogen.GEN_DIR / "stratum_pb2_grpc.py").read_text()
    assert "from serving._gen import stratum_pb2" in grpc_module
    assert "from stratum.v1" not in grpc_module


def _fields(msg) -> set[str]:
    return {f.name for f in msg.DESCRIPTOR.fields}


def test_wire_envelope_mirrors_the_dataclasses():
    assert _fields(pb.Envelope) == {f.name for f in dataclasses.fields(Envelope)}
    assert _fields(pb.Budget) == {f.name for f in dataclasses.fields(Budget)}
    assert _fields(pb.Eviction) == {f.name for f in dataclasses.fields(Eviction)}
    item = {f.name for f in dataclasses.fields(Item)}
    assert _fields(pb.Item) == (item - {"meta"}) | {"meta_json"}
    assert {"provenance", "trust", "why", "notes"} <= _fields(pb.Item)


def test_note_ref_carries_the_documented_note_keys():
    """Item.notes dicts (stratum.envelope): id, kind, age_days, author, trust, stale, line; others in extra."""
    assert _fields(pb.NoteRef) == {"id", "kind", "age_days", "author", "trust", "stale", "line", "extra"}
    assert pb.DESCRIPTOR.package == "stratum.v1"


def test_every_response_message_carries_the_envelope():
    service = pb.DESCRIPTOR.services_by_name["Stratum"]
    for method in service.methods:
        fields = {f.name: f.number for f in method.output_type.fields}
        assert fields["envelope"] == 1 and fields["items"] == 2 and fields["data_json"] == 3, method.name
