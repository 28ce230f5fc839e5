//! skillhost's live catalog as an MCP server, with the Skills Extension
//! (SEP-2640, `io.modelcontextprotocol/skills`).
//!
//! A thin layer over a [`skillhost::Registry`]: every skill it serves is a
//! skill of that registry, every file is read again from its provider, and
//! the registry's watcher drives the notifications. It speaks both protocol
//! revisions (2025-11-25 with `initialize` and sessions, 2026-07-28
//! stateless with `server/discover` and `subscriptions/listen`), over stdio
//! or Streamable HTTP, through the official Rust SDK (`rmcp`).
//!
//! - [`live`]: the view of the catalog and the worker keeping it current;
//! - [`handler`]: the MCP methods; `calls` the ones that reach a provider;
//! - [`http`]: Streamable HTTP at `/mcp`, with its safety checks;
//! - [`entry`], [`view`], [`uri`], [`content`]: what is served, and how.
//!
//! ```no_run
//! # async fn run() -> Result<(), skillhost_mcp::ServeError> {
//! use std::sync::Arc;
//! let runtime = skillhost::Runtime::new()?;
//! let registry = Arc::new(runtime.registry_for_roots(&["examples/skills"])?);
//! let live = skillhost_mcp::Live::start(registry, Default::default())?;
//! skillhost_mcp::serve_stdio(live).await
//! # }
//! ```

mod arguments;
mod calls;
pub mod content;
pub mod entry;
mod error;
pub mod handler;
pub mod http;
mod listing;
pub mod live;
mod sessions;
pub mod tools;
pub mod uri;
pub mod view;

pub use error::ServeError;
pub use handler::Handler;
pub use http::{HttpOptions, HttpServer};
pub use live::{Change, Live, Options};

use rmcp::ServiceExt as _;
use std::sync::Arc;

/// Serves one client over stdin and stdout until it hangs up.
pub async fn serve_stdio(live: Arc<Live>) -> Result<(), ServeError> {
    let handler = Handler::new(live, Arc::new(handler::server_config()));
    let running = handler
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError::Session(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServeError::Session(e.to_string()))?;
    Ok(())
}
