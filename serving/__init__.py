"""Thin adapters that put stratum.tools.Tools on the wire (the only package that imports grpc/mcp).

    server      gRPC server: one RPC per tool, health, reflection, reload, graceful shutdown
    auth        who calls: bearer tokens, mTLS, TLS, the bind rules (ServerSecurity)
    client      typed Python client mirroring Tools call for call
    mcp_server  MCP over stdio, on local stores or in front of a gRPC server
    convert     Response dataclasses <-> wire messages, in one place
    protogen    regenerates _gen/ from proto/stratum/v1/stratum.proto (`make proto`)
"""

__all__: list[str] = []
