"""The RPCs a stopping server waits for (``server.APPENDING_RPCS``: derived from the tools marked
``tool(appends=True)``) are RPCs of the service whose tools write, and they are the three note
tools: a tool renamed or left unmarked cannot silently stop being waited for."""

from __future__ import annotations

from serving._gen import stratum_pb2 as pb
from serving.server import APPENDING_RPCS, _tool_name
from stratum.tools import WRITING


def test_the_appending_rpcs_are_writing_tools_of_the_service():
    rpcs = {m.name for m in pb.DESCRIPTOR.services_by_name["Stratum"].methods}
    assert APPENDING_RPCS <= rpcs
    assert {_tool_name(r) for r in APPENDING_RPCS} <= WRITING
    assert {"remember", "retract", "confirm"} == {_tool_name(r) for r in APPENDING_RPCS}    # the tools marked
