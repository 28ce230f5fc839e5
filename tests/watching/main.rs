//! The live catalog with the real OS watcher, and the session layer on top
//! of it: changes reaching the catalog, injection and invocation over a real
//! session log, and the log as data rather than authority.

mod session;
mod session_log;
mod watching;
