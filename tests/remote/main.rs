//! The remote provider: against a real nginx serving a mirror, and against
//! in-process HTTP and MCP servers that misbehave on demand. And components
//! through OCI registries: a real `docker-registry` on loopback (anonymous
//! and htpasswd), `skopeo` both ways, and a server answering as no honest
//! registry does.

mod oci_hostile;
mod oci_interop;
mod oci_pull_push;
mod remote;
mod remote_faults;
mod remote_mcp_faults;
