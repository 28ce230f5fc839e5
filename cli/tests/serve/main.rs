//! `skillhost serve` as users and their MCP clients run it: the official
//! conformance suite and the official Python SDK, installed by
//! `scripts/ensure-mcp-tools`, against the real binary.

mod conformance;
mod conformance_client;
mod fastmcp;
mod flags;
mod languages;
mod mcp_remote;
mod python;
mod registry;
mod remote;
mod support;
mod usage;
