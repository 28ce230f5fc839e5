//! Against a real registry: Debian's `docker-registry` (the CNCF
//! distribution registry) on loopback, anonymous and behind htpasswd basic
//! auth; `skopeo` pushing and pulling the other way; and a hostile server
//! for the answers no honest registry gives.

mod hostile;
mod interop;
mod pull_push;
mod support;
