//! The remote provider: against a real nginx serving a mirror, and against
//! in-process HTTP and MCP servers that misbehave on demand.

mod remote;
mod remote_faults;
mod remote_mcp_faults;
